"""Matrix products (TVM's ``topi.nn.dense``, ``topi.nn.matmul`` and ``topi.nn.batch_matmul``):
one reduction over the inner axis, with TVM's names (``T_matmul_NT`` ...), tags (``dense`` for
data times a transposed weight, ``matmul`` otherwise, ``batch_matmul``) and an optional bias
added in a ``broadcast`` stage."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi import tag
from topi.utils import const_value


def _check(op: str, ndim: int, **tensors: Any) -> None:
    for what, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"topi.nn.{op}: {what} must be a tensor, got {t!r}")
        if len(t.shape) != ndim:
            raise ValueError(f"topi.nn.{op}: {what} must be {ndim}-dimensional, got shape {list(map(str, t.shape))}")


def _same_inner(op: str, a: Any, b: Any) -> None:
    if const_value(a) is not None and const_value(b) is not None and const_value(a) != const_value(b):
        raise ValueError(f"topi.nn.{op}: the inner dimensions differ ({a} against {b})")


def matmul(tensor_a: Tensor, tensor_b: Tensor, bias: Tensor | None = None, out_dtype: str | None = None,
           transpose_a: bool = False, transpose_b: bool = False) -> Tensor:
    """``tensor_a @ tensor_b`` with either operand transposed first; *bias* (one value per
    output column) added after."""
    _check("matmul", 2, tensor_a=tensor_a, tensor_b=tensor_b)
    out_dtype = out_dtype or tensor_a.dtype
    inner, rows = tensor_a.shape if transpose_a else tensor_a.shape[::-1]
    cols, inner_b = tensor_b.shape if transpose_b else tensor_b.shape[::-1]
    _same_inner("matmul", inner, inner_b)
    k = te.reduce_axis((0, inner), name="k")

    def element(i: Any, j: Any) -> Any:
        a = tensor_a[k, i] if transpose_a else tensor_a[i, k]
        b = tensor_b[j, k] if transpose_b else tensor_b[k, j]
        return te.sum(a.astype(out_dtype) * b.astype(out_dtype), axis=k)
    name = f"T_matmul_{'T' if transpose_a else 'N'}{'T' if transpose_b else 'N'}"
    out = te.compute((rows, cols), element, name=name,
                     tag="dense" if (transpose_a, transpose_b) == (False, True) else "matmul",
                     attrs={"layout_free_placeholders": [tensor_b]})
    if bias is None:
        return out
    _check("matmul", 1, bias=bias)
    return te.compute((rows, cols), lambda i, j: out[i, j] + bias[j].astype(out_dtype), tag=tag.BROADCAST)


def dense(data: Tensor, weight: Tensor, bias: Tensor | None = None, out_dtype: str | None = None) -> Tensor:
    """``data @ weight.T`` (data ``(batch, in)``, weight ``(out, in)``), plus *bias*."""
    return matmul(data, weight, bias, out_dtype, False, True)


def batch_matmul(tensor_a: Tensor, tensor_b: Tensor, oshape: Any = None, out_dtype: str | None = None,
                 transpose_a: bool = False, transpose_b: bool = True) -> Tensor:
    """One matrix product per batch: ``a[b] @ b[b].T`` by default (a ``(batch, M, K)``, b
    ``(batch, N, K)``); a batch of 1 on either side is shared by every batch of the other."""
    _check("batch_matmul", 3, tensor_a=tensor_a, tensor_b=tensor_b)
    out_dtype = out_dtype or tensor_a.dtype
    batch_a, *a_rest = tensor_a.shape
    batch_b, *b_rest = tensor_b.shape
    inner, rows = a_rest if transpose_a else a_rest[::-1]
    cols, inner_b = b_rest if transpose_b else b_rest[::-1]
    _same_inner("batch_matmul", inner, inner_b)
    va, vb = const_value(batch_a), const_value(batch_b)
    if va is not None and vb is not None and va != vb and 1 not in (va, vb):
        raise ValueError(f"topi.nn.batch_matmul: batches {va} and {vb} differ and neither is 1")
    batch = batch_b if va == 1 else batch_a
    k = te.reduce_axis((0, inner), name="k")

    def element(b: Any, i: Any, j: Any) -> Any:
        ba = 0 if va == 1 and vb != 1 else b
        bb = 0 if vb == 1 and va != 1 else b
        a = tensor_a[ba, k, i] if transpose_a else tensor_a[ba, i, k]
        w = tensor_b[bb, j, k] if transpose_b else tensor_b[bb, k, j]
        return te.sum(a.astype(out_dtype) * w.astype(out_dtype), axis=k)
    name = f"T_batch_matmul_{'T' if transpose_a else 'N'}{'T' if transpose_b else 'N'}"
    return te.compute(oshape or (batch, rows, cols), element, name=name, tag="batch_matmul")
