"""TVM's ``tvm.contrib``: ``utils.tempdir()``."""

from tebound.tvm.contrib import utils

__all__ = ["utils"]
