"""The distinct elements of a 1-d tensor (TVM's ``topi.unique``) and the positions of nonzero
elements (``topi.argwhere``).

``unique`` is an extern operation whose packed function (``tebound.topi.unique``, registered
as the sorts are) finds them with NumPy: its outputs are as long as the input, the tail past
``num_unique`` left as it was. ``argwhere`` is an extern ``ir_builder`` body: one pass in
order, each nonzero element's multi-index written to the next row (on a GPU, the rows from a
parallel scan)."""

from __future__ import annotations

from typing import Any

import numpy as np

import schedule as te
from schedule import Tensor, extern, get_global_func, ir_builder, register_func
from schedule.ir import arith
from schedule.ir.buffer import call_packed, decl_buffer
from topi.extern_items import each_item
from topi.scan import parallel_scan
from topi.transform.shape import product, tensor

UNIQUE = "tebound.topi.unique"


def _unique(data: np.ndarray, unique: np.ndarray, indices: np.ndarray, inverse: np.ndarray, count: np.ndarray,
            *rest: Any) -> None:
    *counts, is_sorted = rest
    values, first, back, times = np.unique(data, return_index=True, return_inverse=True, return_counts=True)
    if not is_sorted:  # in the order of first occurrence
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        values, first, times, back = values[order], first[order], times[order], rank[back]
    n = len(values)
    unique[:n], indices[:n], count[0] = values, first, n
    inverse[...] = back.reshape(-1)
    if counts:
        counts[0][:n] = times


def unique(data: Tensor, is_sorted: bool = True, return_counts: bool = False) -> list[Tensor]:
    """``[unique, indices, inverse_indices, num_unique]`` (and ``counts`` with *return_counts*) of
    1-d *data*: its distinct values (sorted, or in the order they first occur), the index of
    each one's first occurrence, each element's position among them, and their number.

    :raises ValueError: for data that is not 1-d.
    """
    data = tensor("unique", data)
    if len(data.shape) != 1:
        raise ValueError(f"topi.unique: takes a 1-d tensor, got shape {list(map(str, data.shape))}")
    if get_global_func(UNIQUE, allow_missing=True) is None:
        register_func(UNIQUE, _unique)
    shapes = [data.shape, data.shape, data.shape, (1,)] + ([data.shape] if return_counts else [])
    dtypes = [data.dtype, "int32", "int32", "int32"] + (["int32"] if return_counts else [])
    outs = extern(shapes, [data], lambda ins, outs: call_packed(UNIQUE, ins[0], *outs, int(bool(is_sorted))),
                  name="unique", dtype=dtypes, tag="unique")
    return list(outs)


def argwhere(output_shape: Tensor, condition: Tensor) -> Tensor:
    """The indices of *condition*'s nonzero elements in row-major order, one row each: an
    ``(count, ndim)`` int32 tensor whose count is *output_shape*'s first dimension (TVM's
    caller computes it); nonzero elements past that count are not written.

    :raises ValueError: for an output shape that is not ``(count, ndim)``.
    """
    return _argwhere(output_shape, condition, False)


def cuda_argwhere(output_shape: Tensor, condition: Tensor) -> Tensor:
    """:func:`argwhere` on a GPU (TVM's ``topi.cuda.argwhere``): each element's row is the
    number of nonzero elements before it, a parallel scan of the nonzero flags, and each
    nonzero element a thread writing its row (one thread's pass for a symbolic shape)."""
    return _argwhere(output_shape, condition, True)


def _argwhere(output_shape: Tensor, condition: Tensor, gpu: bool) -> Tensor:
    shape, cond = tensor("argwhere", output_shape), tensor("argwhere", condition)
    ndim = len(cond.shape)
    if len(shape.shape) != 2 or arith.value_of(shape.shape[1]) not in (ndim, None):
        raise ValueError(f"topi.argwhere: output_shape is (count, {ndim}) for a {ndim}-d condition, got "
                         f"{list(map(str, shape.shape))}")
    strides = [product(cond.shape[k + 1:]) for k in range(ndim)]
    rows = shape.shape[0]

    total = arith.value_of(product(cond.shape))

    def parallel(ib: Any, c: Any, out: Any) -> None:
        nonzero = ib.allocate("int32", (total,), "nonzero", "global")
        row = ib.allocate("int32", (total,), "row", "global")
        with ib.new_scope(), each_item(ib, total, True) as i:
            nonzero[i] = (c[i] != arith.const(0, cond.dtype)).astype("int32")
        parallel_scan(ib, nonzero, row, 1, total, lambda line, p: p, lambda a, b: a + b, arith.const(0, "int32"),
                      "int32", True)
        with ib.new_scope(), each_item(ib, total, True) as i:
            with ib.if_scope(te.all(nonzero[i] == 1, row[i] < rows)):
                for k, stride in enumerate(strides):
                    out[row[i] * ndim + k] = (i // stride % cond.shape[k]).astype("int32")

    def body(c: Any, out: Any) -> Any:
        ib = ir_builder.create()
        c, out = ib.buffer_ptr(c), ib.buffer_ptr(out)
        if gpu and total:
            parallel(ib, c, out)
            return ib.get()
        with each_item(ib, 1, gpu, "only"):
            found = ib.allocate("int32", (1,), name="found", scope="local")
            found[0] = arith.const(0, "int32")
            with ib.for_range(0, product(cond.shape), "i") as i:
                with ib.if_scope(te.all(c[i] != arith.const(0, cond.dtype), found[0] < rows)):
                    for k, stride in enumerate(strides):
                        out[found[0] * ndim + k] = (i // stride % cond.shape[k]).astype("int32")
                    found[0] = found[0] + 1
        return ib.get()

    out = decl_buffer((rows, ndim), "int32", "out_buf")
    return extern([(rows, ndim)], [cond], lambda ins, outs: body(ins[0], outs[0]), dtype=["int32"],
                  out_buffers=[out], name="argwhere", tag="argwhere")
