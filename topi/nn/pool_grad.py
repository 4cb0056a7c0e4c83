"""The gradient of 2-d pooling (TVM's ``topi.nn.pool_grad``): the adjoint of
:func:`topi.nn.pool2d`. An input element receives, from every window that holds it, the
window's output gradient divided by the window's count (average), or the whole gradient if it
is the window's first largest element (max)."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi.nn.pad import pad
from topi.nn.pooling import padding_pairs, spatial_axes, window_count
from topi.nn.pooling import pool_type as check_pool_type
from topi.reduction import index_reducer
from topi.utils import const_value, pair


def pool_grad(grads: Tensor, data: Tensor, kernel: Any, stride: Any, padding: Any, pool_type: str,
              ceil_mode: bool = False, count_include_pad: bool = True, layout: str = "NCHW") -> Tensor:
    """The gradient with respect to *data* of ``pool2d(data, kernel, stride, 1, padding,
    pool_type, ceil_mode, layout, count_include_pad)`` given *grads*, the gradient of its output.

    :raises ValueError: when *grads* does not have the pool's output shape.
    """
    op = "pool_grad"
    kind = check_pool_type(op, pool_type)
    axes = spatial_axes(op, data, layout, 2)
    if not isinstance(grads, Tensor):
        raise TypeError(f"topi.nn.{op}: grads must be a tensor, got {grads!r}")
    kernel_, strides = pair(op, "kernel", kernel), pair(op, "stride", stride)
    head, tail = padding_pairs(op, padding, 2)
    ones = (1, 1)
    before, after = [0] * len(data.shape), [0] * len(data.shape)
    out_shape = list(data.shape)
    for k, a in enumerate(axes):
        before[a], after[a] = head[k], tail[k] + (strides[k] - 1 if ceil_mode else 0)
        out_shape[a] = arith.add(arith.floordiv(arith.add(arith.sub(data.shape[a], kernel_[k]),
                                                          before[a] + after[a]), strides[k]), 1)
    if len(grads.shape) != len(out_shape) or any(const_value(g) not in (None, const_value(o))
                                                 for g, o in zip(grads.shape, out_shape)):
        raise ValueError(f"topi.nn.{op}: grads has shape {list(map(str, grads.shape))}; the pool's output is "
                         f"{list(map(str, out_shape))}")
    # The windows that may hold a padded position: at most ceil(kernel / stride) per axis.
    rw = [te.reduce_axis((0, -(-kernel_[k] // strides[k])), name=f"w{k}") for k in range(2)]

    def windows(index: tuple[Any, ...]) -> tuple[list[Any], Any]:
        """The index of window (rw) in *grads*, clamped inside it, and whether that window
        exists and holds *index*."""
        at, valid = list(index), []
        for k, a in enumerate(axes):
            position = index[a] + head[k]
            o = te.floordiv(position, strides[k]) - rw[k]
            valid += [o >= 0, o < grads.shape[a], position - o * strides[k] < kernel_[k]]
            at[a] = te.max(te.min(o, arith.sub(grads.shape[a], 1)), 0)
        return at, te.all(*valid)

    zero = arith.const(0, grads.dtype)
    if kind == "avg":
        def average(*index: Any) -> Any:
            at, valid = windows(index)
            n = window_count(at, data, axes, kernel_, strides, ones, head, tail, count_include_pad)
            share = te.div(grads[tuple(at)], n.astype(grads.dtype) if grads.dtype.startswith("float") else n)
            return te.sum(te.if_then_else(valid, share, zero), axis=rw)
        return te.compute(data.shape, average, name="T_pool_grad", tag="pool_grad_avg")

    padded = pad(data, before, after, te.min_value(data.dtype), name="pad_temp")
    width = padded.shape[axes[1]]
    rk = [te.reduce_axis((0, kernel_[k]), name=f"rv{k}") for k in range(2)]
    largest = index_reducer(True)

    def first_max(*index: Any) -> Any:
        at = list(index)
        rows, cols = (index[a] * strides[k] + rk[k] for k, a in enumerate(axes))
        at[axes[0]], at[axes[1]] = rows, cols
        return largest(((rows * width + cols).astype("int32"), padded[tuple(at)]), axis=rk)
    where, _ = te.compute(out_shape, first_max, name="maxpool_grad_argmax", tag="comm_reduce_idx")

    def route(*index: Any) -> Any:
        at, valid = windows(index)
        mine = (index[axes[0]] + head[0]) * width + index[axes[1]] + head[1]
        return te.sum(te.if_then_else(te.all(valid, where[tuple(at)] == mine), grads[tuple(at)], zero), axis=rw)
    return te.compute(data.shape, route, name="T_pool_grad", tag="pool_grad_max")
