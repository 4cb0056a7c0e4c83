"""TVM's ``tvm.contrib``: ``utils.tempdir()``, ``cc.create_shared``, ``cblas.matmul``, ``tedd``,
``pickle_memoize``, ``clang.create_llvm`` (native C/C++ functions for ``call_extern``), and
``nvcc``/``cudnn`` (what a GPU would support; no GPU library here)."""

from tebound.tvm.contrib import cblas, cc, clang, cudnn, nvcc, pickle_memoize, tedd, utils

__all__ = ["cblas", "cc", "clang", "cudnn", "nvcc", "pickle_memoize", "tedd", "utils"]
