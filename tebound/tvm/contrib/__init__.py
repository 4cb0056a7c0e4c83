"""TVM's ``tvm.contrib``: ``utils.tempdir()``, ``cc.create_shared``, ``cblas.matmul``, ``tedd``,
``pickle_memoize``, and ``nvcc``/``cudnn`` (what a GPU would support; no GPU library here)."""

from tebound.tvm.contrib import cblas, cc, cudnn, nvcc, pickle_memoize, tedd, utils

__all__ = ["cblas", "cc", "cudnn", "nvcc", "pickle_memoize", "tedd", "utils"]
