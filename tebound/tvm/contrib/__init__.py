"""TVM's ``tvm.contrib``: ``utils.tempdir()``, ``cblas.matmul`` and ``tedd``."""

from tebound.tvm.contrib import cblas, tedd, utils

__all__ = ["cblas", "tedd", "utils"]
