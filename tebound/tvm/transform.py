"""TVM's ``tvm.transform``: ``PassContext`` (pass options in a ``with`` block) and
``Sequential``."""

from lower.transform import Pass, Sequential
from schedule.base.pass_context import PassContext

__all__ = ["Pass", "PassContext", "Sequential"]
