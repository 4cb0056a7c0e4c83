"""TVM's ``tvm.contrib``: ``utils.tempdir()``, ``cc.create_shared``, ``cblas.matmul`` and
``tedd``."""

from tebound.tvm.contrib import cblas, cc, tedd, utils

__all__ = ["cblas", "cc", "tedd", "utils"]
