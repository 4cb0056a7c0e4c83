"""TVM's ``tvm.te.hybrid.runtime``: the names a hybrid script sees when run as Python."""

from schedule.operation.hybrid import HYBRID_GLOBALS

__all__ = ["HYBRID_GLOBALS"]
