"""TVM's ``tvm.driver``: ``lower`` and ``build`` (see :mod:`.build_module`)."""

from tebound.tvm.driver import build_module
from tebound.tvm.driver.build_module import build, lower

__all__ = ["build", "build_module", "lower"]
