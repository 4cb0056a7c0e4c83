"""TVM's ``tvm.script``: ``from tvm.script import tir as T`` and ``ir as I`` to write
functions in TVMScript (the non-block subset), :func:`from_source` to read its text, and
``tvm.script.ir_module`` as TVM v0.10's spelling of ``I.ir_module``."""

from lower.ir.script.parse_expr import ScriptError
from lower.tvmscript import from_source
from tebound.tvm.script import ir, tir
from tebound.tvm.script.ir import ir_module

__all__ = ["ScriptError", "from_source", "ir", "ir_module", "tir"]
