"""TVM's ``tvm.contrib.sparse``: CSR arrays (``array``: data, indices, indptr as NumPy-backed
``tvm.nd`` arrays) and placeholders (``placeholder``: three tensors of their parts), for
``topi.sparse``."""

from __future__ import annotations

from typing import Any

import numpy as np

import schedule as te
from lower.backend.nd import array as nd_array


class CSRNDArray:
    """A matrix in compressed sparse row form: from a dense NumPy array, or from ``(data,
    indices, indptr)`` with *shape*."""

    stype = "csr"

    def __init__(self, arg1: Any, device: Any = None, shape: Any = None) -> None:
        if isinstance(arg1, tuple):
            if len(arg1) != 3 or shape is None:
                raise ValueError("tvm.contrib.sparse: a CSR array from parts takes (data, indices, indptr) and shape")
            data, indices, indptr = (np.asarray(x) for x in arg1)
            self.shape = tuple(int(d) for d in shape)
        else:
            dense = np.asarray(arg1)
            if dense.ndim != 2:
                raise ValueError(f"tvm.contrib.sparse: a CSR array is 2-d, got shape {dense.shape}")
            rows, cols = np.nonzero(dense)
            data, indices = dense[rows, cols], cols.astype("int32")
            indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=dense.shape[0]))]).astype("int32")
            self.shape = dense.shape
        self.dtype = str(data.dtype)
        self.data, self.indices, self.indptr = (nd_array(x, device) for x in (data, indices.astype("int32"),
                                                                              indptr.astype("int32")))

    def numpy(self) -> np.ndarray:
        """The dense matrix."""
        dense = np.zeros(self.shape, self.dtype)
        for row in range(self.shape[0]):
            for k in range(int(self.indptr[row]), int(self.indptr[row + 1])):
                dense[row, int(self.indices[k])] = self.data[k]
        return dense

    asnumpy = numpy


def array(source_array: Any, device: Any = None, shape: Any = None, stype: str = "csr") -> CSRNDArray:
    """A CSR array of *source_array* (a dense array, or its parts with *shape*)."""
    if stype != "csr":
        raise ValueError(f"tvm.contrib.sparse: only the 'csr' storage type is supported, not {stype!r}")
    return CSRNDArray(source_array, device, shape)


class CSRPlaceholderOp:
    """A CSR matrix of *shape* as three placeholders: ``data`` (*nonzeros* values), ``indices``
    (their columns) and ``indptr`` (each row's start, one per row and one past the end)."""

    stype = "csr"

    def __init__(self, shape: Any, nonzeros: Any, dtype: str, name: str) -> None:
        self.shape, self.nonzeros, self.dtype, self.name = tuple(shape), nonzeros, dtype, name
        self.data = te.placeholder((nonzeros,), dtype=dtype, name=f"{name}_data")
        self.indices = te.placeholder((nonzeros,), dtype="int32", name=f"{name}_indices")
        self.indptr = te.placeholder((self.shape[0] + 1,), dtype="int32", name=f"{name}_indptr")


def placeholder(shape: Any, nonzeros: Any = None, dtype: str | None = None, name: str = "placeholder",
                stype: str | None = None) -> CSRPlaceholderOp:
    """A CSR placeholder of *shape* (its nonzeros a variable unless given)."""
    if stype not in (None, "csr"):
        raise ValueError(f"tvm.contrib.sparse: only the 'csr' storage type is supported, not {stype!r}")
    if not isinstance(shape, (list, tuple)) or len(shape) != 2:
        raise ValueError(f"tvm.contrib.sparse: a CSR placeholder is 2-d, got shape {shape!r}")
    return CSRPlaceholderOp(shape, nonzeros if nonzeros is not None else te.var(f"{name}_nonzeros"),
                            dtype or "float32", name)


__all__ = ["CSRNDArray", "CSRPlaceholderOp", "array", "placeholder"]
