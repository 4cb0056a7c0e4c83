"""TVM's ``tvm.ir.transform``: the same ``PassContext``, ``Pass`` and ``Sequential`` as
``tvm.transform``."""

from tebound.tvm.transform import Pass, PassContext, Sequential

__all__ = ["Pass", "PassContext", "Sequential"]
