"""TVM's ``tvm.te.hybrid``: hybrid scripts (``@script``), with ``runtime.HYBRID_GLOBALS``, and
``build``/``HybridModule`` (a script's schedule built as a callable that saves its source)."""

from schedule.operation.hybrid import HYBRID_GLOBALS, HybridFunction, script
from tebound.tvm.te.hybrid import runtime
from tebound.tvm.te.hybrid.module import HybridModule, build

__all__ = ["HYBRID_GLOBALS", "HybridFunction", "HybridModule", "build", "runtime", "script"]
