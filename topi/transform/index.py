"""Transforms that pick elements by index (TVM's ``topi.take`` and ``topi.strided_slice``),
tagged ``injective``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.reduction import normalize_axes
from topi.transform.shape import product, tensor, unravel
from topi.utils import const_value

_MODES = ("clip", "wrap", "fast")


def take(a: Tensor, indices: Any, axis: int | None = None, batch_dims: int = 0, mode: str = "clip") -> Tensor:
    """The elements of *a* at *indices* along *axis* (of the flattened *a* when None). An index
    out of range is clamped (``clip``), taken modulo the length (``wrap``, so -1 is the last), or
    left to the user to keep in range (``fast``). The first *batch_dims* axes of *indices* index
    the first axes of *a* one to one."""
    a = tensor("take", a)
    if mode not in _MODES:
        raise ValueError(f"topi.take: mode must be one of {', '.join(_MODES)}, got {mode!r}")
    if isinstance(indices, Tensor):
        if not indices.dtype.startswith(("int", "uint")):
            raise TypeError(f"topi.take: indices must be integers, got dtype {indices.dtype}")
        index_shape = list(indices.shape)
    elif isinstance(indices, int) and not isinstance(indices, bool) or isinstance(indices, te.Expr):
        index_shape = []
    else:
        raise TypeError(f"topi.take: indices must be a tensor or an int, got {indices!r} (make a list a "
                        f"placeholder and pass its array)")
    if axis is None:
        axis_, length, dims = 0, product(a.shape), [product(a.shape)]
    else:
        (axis_,) = normalize_axes("take", len(a.shape), axis)
        length, dims = a.shape[axis_], list(a.shape)
    if not 0 <= batch_dims <= min(axis_, len(index_shape)):
        raise ValueError(f"topi.take: batch_dims {batch_dims} must be within [0, {min(axis_, len(index_shape))}]")
    shape = [*dims[:axis_], *index_shape[batch_dims:], *dims[axis_ + 1:]]
    k = len(index_shape) - batch_dims

    def element(*i: Any) -> Any:
        at = (*i[:batch_dims], *i[axis_:axis_ + k])
        where = indices[at] if isinstance(indices, Tensor) else arith.convert(indices)
        where = where.astype("int32") if where.dtype != "int32" else where
        if mode == "clip":
            where = te.min(te.max(where, 0), length - 1)
        elif mode == "wrap":
            where = te.floormod(where, length)
        if axis is None:
            return a[tuple(unravel(where, a.shape))]
        return a[(*i[:axis_], where, *i[axis_ + k:])]
    return te.compute(shape, element, name="T_take", tag=tag.INJECTIVE)


def _slice_of(op: str, length: Any, begin: int, end: int, step: int) -> tuple[Any, Any]:
    """The first index and the count of a NumPy slice over an axis of *length*."""
    n = const_value(length)
    if n is not None:
        first, last, step = slice(begin, end, step).indices(n)
        return first, max(0, -(-(last - first) // step))
    if step < 1 or begin < 0 or end < begin:
        raise ValueError(f"topi.{op}: on an axis of symbolic length {length}, begin and end must be non-negative "
                         f"and in order, with a positive stride")
    stop = te.min(arith.convert(end), length) if end < 2**31 - 1 else length
    return begin, te.floordiv(te.max(stop - begin, 0) + step - 1, step)


def slice_bounds(b: Any, e: Any, s: Any, n: Any) -> tuple[Any, Any]:
    """NumPy's normalization of ``slice(b, e, s)`` over an axis of *n* (expressions): negative
    positions count from the end, then clamp to [0, n] going up and to [-1, n - 1] going down."""
    def wrap(x: Any) -> Any:
        return te.if_then_else(x < 0, x + n, x)

    def clamp(x: Any, low: Any, high: Any) -> Any:
        return te.max(te.min(x, high), low)
    up = s > 0
    return (te.if_then_else(up, clamp(wrap(b), 0, n), clamp(wrap(b), -1, n - 1)),
            te.if_then_else(up, clamp(wrap(e), 0, n), clamp(wrap(e), -1, n - 1)))


def slice_param(t: Any, k: int, default: int) -> Any:
    """Entry *k* of a slice's begin, end or strides (a 1-d tensor read while the kernel runs,
    or a list), as int32; *default* past its end or when none is given."""
    if isinstance(t, Tensor):
        n = const_value(t.shape[0])
        return t[k].astype("int32") if n is None or k < n else arith.const(default, "int32")
    return arith.const(int(t[k]) if t is not None and k < len(t) else default, "int32")


def strided_slice(a: Tensor, begin: Sequence[int], end: Sequence[int], strides: Sequence[int] | None = None,
                  axes: Sequence[int] | None = None, slice_mode: str = "end") -> Tensor:
    """``a[begin:end:strides]`` with NumPy's meaning (negative from the end, clamped to the
    axis), over *axes* (the first ``len(begin)`` axes by default). With ``slice_mode="size"``,
    *end* is the number of elements (-1: to the end) and strides are 1."""
    a = tensor("strided_slice", a)
    if any(isinstance(x, Tensor) for x in (begin, end, strides)):
        if axes is not None or slice_mode != "end":
            raise ValueError("topi.strided_slice: begin, end or strides given as tensors slice every axis in "
                             "order, by end (no axes, slice_mode 'end')")
        return dynamic_strided_slice(a, begin, end, strides)
    if slice_mode not in ("end", "size"):
        raise ValueError(f"topi.strided_slice: slice_mode must be 'end' or 'size', got {slice_mode!r}")
    begin, end = list(begin), list(end)
    steps = [1] * len(begin) if strides is None or slice_mode == "size" else list(strides)
    steps = steps + [1] * (len(begin) - len(steps))
    which = list(range(len(begin))) if axes is None else normalize_axes("strided_slice", len(a.shape), axes)
    if len(end) != len(begin) or len(which) != len(begin) or len(begin) > len(a.shape) or 0 in steps:
        raise ValueError(f"topi.strided_slice: begin {begin}, end {end} and strides {steps} must have one nonzero "
                         f"stride per sliced axis, at most {len(a.shape)}")
    starts, steps_of, shape = {}, {}, list(a.shape)
    for ax, b, e, s in zip(which, begin, end, steps):
        if slice_mode == "size":
            e = 2**31 - 1 if e < 0 else b + e
        starts[ax], shape[ax] = _slice_of("strided_slice", a.shape[ax], b, e, s)
        steps_of[ax] = s
    return te.compute(shape, lambda *i: a[tuple(starts[k] + x * steps_of[k] if k in starts else x
                                               for k, x in enumerate(i))], name="T_strided_slice", tag=tag.INJECTIVE)


def dynamic_strided_slice(a: Tensor, begin: Any, end: Any, strides: Any = None) -> Tensor:
    """``a[begin:end:strides]`` with the bounds read while the kernel runs (1-d integer tensors,
    or lists): NumPy's meaning per axis. The output's shape is the array the caller passes
    (one size variable per axis); an element it asks for beyond the slice reads outside *a*,
    which the kernel reports."""
    ndim = len(a.shape)

    for what, t in (("begin", begin), ("end", end), ("strides", strides)):
        if isinstance(t, Tensor) and (len(t.shape) != 1 or not t.dtype.startswith(("int", "uint"))):
            raise ValueError(f"topi.strided_slice: {what} must be a 1-d integer tensor, got "
                             f"{t.dtype}{list(map(str, t.shape))}")
    shape = [te.size_var(f"slice_{k}") for k in range(ndim)]

    def element(*i: Any) -> Any:
        at = []
        for k in range(ndim):
            step = slice_param(strides, k, 1)
            first, _ = slice_bounds(slice_param(begin, k, 0), slice_param(end, k, 2 ** 31 - 1), step,
                                    arith.convert(a.shape[k]).astype("int32"))
            at.append(first + i[k].astype("int32") * step)
        return a[tuple(at)]
    return te.compute(shape, element, name="T_dynamic_strided_slice", tag=tag.INJECTIVE)
