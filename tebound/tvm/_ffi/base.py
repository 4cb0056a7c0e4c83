"""TVM's ``tvm._ffi.base``: ``TVMError``."""

from schedule.base.errors import TeError as TVMError

__all__ = ["TVMError"]
