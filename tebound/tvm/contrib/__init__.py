"""TVM's ``tvm.contrib``: ``utils.tempdir()`` and ``cblas.matmul``."""

from tebound.tvm.contrib import cblas, utils

__all__ = ["cblas", "utils"]
