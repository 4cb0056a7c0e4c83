"""TVM's ``tvm.script``: ``from tvm.script import tir as T`` and ``ir as I`` to write
functions in TVMScript (the non-block subset), and :func:`from_source` to read its text."""

from lower.ir.script.parse_expr import ScriptError
from lower.tvmscript import from_source
from tebound.tvm.script import ir, tir

__all__ = ["ScriptError", "from_source", "ir", "tir"]
