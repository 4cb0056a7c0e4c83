"""TVM's ``tvm.contrib.cblas``: ``matmul(A, B, transa, transb)`` as an extern operation whose
function is the BLAS matrix product NumPy links (``numpy.matmul``; OpenBLAS in NumPy's wheels),
so that a schedule can call a library GEMM as TVM's cblas does."""

from __future__ import annotations

from typing import Any

import numpy as np

from schedule import extern, get_global_func, register_func
from schedule.ir.buffer import call_packed

#: The name the function is registered under (TVM's).
MATMUL = "tvm.contrib.cblas.matmul"


def _matmul(a: np.ndarray, b: np.ndarray, c: np.ndarray, transa: int, transb: int) -> None:
    np.matmul(a.T if transa else a, b.T if transb else b, out=c)


def matmul(lhs: Any, rhs: Any, transa: bool = False, transb: bool = False, **kwargs: Any) -> Any:
    """``C = op(lhs) @ op(rhs)`` with ``op`` a transpose where *transa* / *transb* say.

    :raises ValueError: for operands that are not matrices of one inner dimension.
    """
    if len(lhs.shape) != 2 or len(rhs.shape) != 2:
        raise ValueError(f"cblas.matmul: operands are matrices, got shapes {list(map(str, lhs.shape))} and "
                         f"{list(map(str, rhs.shape))}")
    n = lhs.shape[1] if transa else lhs.shape[0]
    m = rhs.shape[0] if transb else rhs.shape[1]
    inner_a = lhs.shape[0] if transa else lhs.shape[1]
    inner_b = rhs.shape[1] if transb else rhs.shape[0]
    if str(inner_a) != str(inner_b):
        raise ValueError(f"cblas.matmul: the inner dimensions differ ({inner_a} and {inner_b})")
    if get_global_func(MATMUL, allow_missing=True) is None:  # a user's registration is kept
        register_func(MATMUL, _matmul)
    return extern((n, m), [lhs, rhs],
                  lambda ins, outs: call_packed(MATMUL, ins[0], ins[1], outs[0], int(transa), int(transb)),
                  name="C", **kwargs)


# Registered on import, as in a TVM built with cblas (programs test for it with
# get_global_func("tvm.contrib.cblas.matmul", allow_missing=True)); a user's own stays.
if get_global_func(MATMUL, allow_missing=True) is None:
    register_func(MATMUL, _matmul)
