"""TVM's ``topi.sparse``: products of a ``tvm.contrib.sparse`` CSR matrix and a dense one."""

from topi.sparse.csr import csrmm, csrmv, dense

__all__ = ["csrmm", "csrmv", "dense"]
