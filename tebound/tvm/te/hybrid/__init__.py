"""TVM's ``tvm.te.hybrid``: hybrid scripts (``@script``), with ``runtime.HYBRID_GLOBALS``."""

from schedule.operation.hybrid import HYBRID_GLOBALS, HybridFunction, script
from tebound.tvm.te.hybrid import runtime

__all__ = ["HYBRID_GLOBALS", "HybridFunction", "runtime", "script"]
