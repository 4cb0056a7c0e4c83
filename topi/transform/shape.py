"""Transforms that move elements without choosing among tensors (TVM's ``topi.reshape``,
``transpose``, ``expand_dims``, ``squeeze``, ``broadcast_to``, ``flip``, ``layout_transform``),
tagged ``injective`` (``broadcast`` for broadcast_to)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.broadcast import broadcast_shape
from topi.layouts import parse_layout, split_shape
from topi.reduction import normalize_axes
from topi.utils import const_value


def tensor(op: str, x: Any) -> Tensor:
    """*x*, refused unless a tensor."""
    if not isinstance(x, Tensor):
        raise TypeError(f"topi.{op}: takes a tensor, got {x!r}")
    return x


def product(dims: Sequence[Any]) -> Any:
    """The number of elements of a shape (1 for a scalar)."""
    total: Any = arith.const(1, "int32")
    for d in dims:
        total = arith.mul(total, d)
    return total


def ravel(index: Sequence[Any], shape: Sequence[Any]) -> Any:
    """The row-major position of *index* in *shape*."""
    flat: Any = arith.const(0, "int32")
    for i, d in zip(index, shape):
        flat = flat * d + i
    return flat


def unravel(flat: Any, shape: Sequence[Any]) -> list[Any]:
    """The index of row-major position *flat* in *shape*."""
    index = []
    for d in reversed(shape[1:]):
        if const_value(d) == 0:  # no element at all: no position to take apart
            index.append(flat)
            continue
        index.append(te.floormod(flat, d))
        flat = te.floordiv(flat, d)
    index.append(flat)
    return index[::-1]


def reshape(a: Tensor, newshape: Sequence[Any]) -> Tensor:
    """*a*'s elements, in row-major order, in *newshape* (one dimension may be -1: the rest).
    A smaller *newshape* takes *a*'s first elements, as TVM's reshape does.

    :raises ValueError: when *newshape* holds more elements than *a*.
    """
    a = tensor("reshape", a)
    shape = list(newshape)
    unknown = [k for k, d in enumerate(shape) if const_value(d) == -1]
    if len(unknown) > 1:
        raise ValueError(f"topi.reshape: newshape {list(newshape)} has more than one -1")
    if unknown:
        known = product([d for k, d in enumerate(shape) if k != unknown[0]])
        shape[unknown[0]] = arith.floordiv(product(a.shape), known)
    total_in, total_out = const_value(product(a.shape)), const_value(product(shape))
    if total_in is not None and total_out is not None and total_out > total_in:
        raise ValueError(f"topi.reshape: cannot reshape {total_in} elements {list(map(str, a.shape))} into "
                         f"{list(newshape)} ({total_out} elements)")
    return te.compute(shape, lambda *i: a[tuple(unravel(ravel(i, shape), a.shape))], name="T_reshape",
                      tag=tag.INJECTIVE)


def transpose(a: Tensor, axes: Sequence[int] | None = None) -> Tensor:
    """*a* with its axes permuted: output axis k is input axis ``axes[k]`` (reversed by default)."""
    a = tensor("transpose", a)
    ndim = len(a.shape)
    order = list(range(ndim))[::-1] if axes is None else [k % ndim if isinstance(k, int) and -ndim <= k < ndim
                                                         else None for k in axes]
    if sorted(o for o in order if o is not None) != list(range(ndim)) or None in order:
        raise ValueError(f"topi.transpose: axes {axes!r} is not a permutation of the {ndim} axes")

    def element(*i: Any) -> Any:
        source = [None] * ndim
        for k, o in enumerate(order):
            source[o] = i[k]
        return a[tuple(source)]
    return te.compute([a.shape[o] for o in order], element, name="T_transpose", tag=tag.INJECTIVE)


def expand_dims(a: Tensor, axis: int, num_newaxis: int = 1) -> Tensor:
    """*a* with *num_newaxis* axes of length 1 inserted at *axis*."""
    a = tensor("expand_dims", a)
    ndim = len(a.shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim - 1 <= axis <= ndim or num_newaxis < 0:
        raise ValueError(f"topi.expand_dims: axis {axis!r} is not within [{-ndim - 1}, {ndim}]")
    at = axis % (ndim + 1)
    shape = [*a.shape[:at], *([1] * num_newaxis), *a.shape[at:]]
    return te.compute(shape, lambda *i: a[(*i[:at], *i[at + num_newaxis:])], name="T_expand_dims",
                      tag=tag.BROADCAST)


def squeeze(a: Tensor, axis: Any = None) -> Tensor:
    """*a* without the axes of length 1 named by *axis* (all of them by default).

    :raises ValueError: for a named axis whose length is not 1.
    """
    a = tensor("squeeze", a)
    if axis is None:
        gone = [k for k, d in enumerate(a.shape) if const_value(d) == 1]
    else:
        gone = normalize_axes("squeeze", len(a.shape), axis)
        wrong = [k for k in gone if const_value(a.shape[k]) != 1]
        if wrong:
            raise ValueError(f"topi.squeeze: axis {wrong[0]} has length {a.shape[wrong[0]]}, not 1")
    kept = [k for k in range(len(a.shape)) if k not in gone]

    def element(*i: Any) -> Any:
        at = dict(zip(kept, i))
        return a[tuple(at.get(k, arith.const(0, "int32")) for k in range(len(a.shape)))]
    return te.compute([a.shape[k] for k in kept], element, name="T_squeeze", tag=tag.INJECTIVE)


def broadcast_to(data: Tensor, shape: Sequence[Any]) -> Tensor:
    """*data* stretched to *shape* by NumPy's rule."""
    data = tensor("broadcast_to", data)
    out = broadcast_shape(data.shape, list(shape))
    if len(out) != len(shape) or any(const_value(o) != const_value(s) for o, s in zip(out, shape)):
        raise ValueError(f"topi.broadcast_to: {list(map(str, data.shape))} does not broadcast to {list(shape)}")
    offset = len(shape) - len(data.shape)

    def element(*i: Any) -> Any:
        return data[tuple(arith.const(0, "int32") if const_value(d) == 1 else i[offset + k]
                          for k, d in enumerate(data.shape))]
    return te.compute(list(shape), element, name="T_broadcast_to", tag=tag.BROADCAST)


def flip(a: Tensor, axis: int = 0) -> Tensor:
    """*a* reversed along *axis*."""
    a = tensor("flip", a)
    (axis,) = normalize_axes("flip", len(a.shape), axis)
    return te.compute(a.shape, lambda *i: a[(*i[:axis], a.shape[axis] - 1 - i[axis], *i[axis + 1:])],
                      name="T_reverse", tag=tag.INJECTIVE)


def layout_transform(array: Tensor, src_layout: str, dst_layout: str, schedule_rule: str = "None") -> Tensor:
    """*array* from *src_layout* to *dst_layout* (``NCHW`` to ``NCHW8c`` and back, or any
    permutation and split of the same axes); an axis split by a factor that does not divide it is
    padded with zeros, as TVM pads it."""
    array = tensor("layout_transform", array)
    src, dst = parse_layout(src_layout), parse_layout(dst_layout)
    if len(src) != len(array.shape):
        raise ValueError(f"topi.layout_transform: layout {src_layout!r} has {len(src)} axes, the tensor "
                         f"{len(array.shape)}")
    if sorted(p for p, f in src if f is None) != sorted(p for p, f in dst if f is None):
        raise ValueError(f"topi.layout_transform: {src_layout!r} and {dst_layout!r} do not hold the same axes")
    sub_src = {p: f for p, f in src if f is not None}
    sub_dst = {p: f for p, f in dst if f is not None}
    full, shape = split_shape(array.shape, src, dst)

    def element(*i: Any) -> Any:
        value = {p: x * sub_dst[p] if p in sub_dst else x for (p, f), x in zip(dst, i) if f is None}
        for (p, f), x in zip(dst, i):  # each primal axis' index: its outer part, then its inner
            if f is not None:
                value[p] = value[p] + x
        source = [te.floordiv(value[p], sub_src[p]) if f is None and p in sub_src
                  else te.floormod(value[p], f) if f is not None else value[p] for p, f in src]
        guards = [value[p] < full[p] for p in sub_dst if const_value(full[p]) is None
                  or const_value(full[p]) % sub_dst[p]]
        return te.if_then_else(te.all(*guards), array[tuple(source)], arith.const(0, array.dtype)) if guards \
            else array[tuple(source)]
    return te.compute(shape, element, name="T_layout_trans", tag=tag.INJECTIVE,
                      attrs={"schedule_rule": schedule_rule, "src_layout": src_layout, "dst_layout": dst_layout})


def meshgrid(a_tuple: Sequence[Tensor], indexing: str) -> list[Tensor]:
    """Coordinate grids of the 1-d (or scalar) tensors in *a_tuple*, as NumPy's ``meshgrid``:
    ``"ij"`` indexes the grid by the tensors in order, ``"xy"`` swaps the first two (the
    Cartesian convention); each grid has one dimension per tensor (a scalar's of length 1)."""
    tensors = [tensor("meshgrid", t) for t in (a_tuple if isinstance(a_tuple, (list, tuple)) else [a_tuple])]
    if indexing not in ("ij", "xy"):
        raise ValueError(f"topi.meshgrid: indexing is 'ij' or 'xy', not {indexing!r}")
    if any(len(t.shape) > 1 for t in tensors):
        raise ValueError("topi.meshgrid: takes 1-d tensors or scalars")
    xy = indexing == "xy" and len(tensors) >= 2
    lengths = [t.shape[0] if t.shape else arith.const(1, "int32") for t in tensors]
    shape = [lengths[1], lengths[0], *lengths[2:]] if xy else lengths

    def grid(k: int, t: Tensor) -> Tensor:
        source = 1 - k if xy and k < 2 else k
        return te.compute(shape, lambda *i: t[i[source]] if t.shape else t(), name="T_meshgrid", tag=tag.INJECTIVE)
    return [grid(k, t) for k, t in enumerate(tensors)]


def sliding_window(data: Tensor, axis: int, window_shape: Sequence[int], strides: Sequence[int]) -> Tensor:
    """Every window of *window_shape* over *data*'s axes from *axis* on, moved by *strides*:
    the axes before *axis*, then the window positions, then the window's elements."""
    data = tensor("sliding_window", data)
    ndim = len(data.shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(f"topi.sliding_window: axis {axis!r} is out of range for {ndim} dimensions")
    axis %= ndim
    window, steps = list(window_shape), list(strides)
    if len(window) != ndim - axis or len(steps) != ndim - axis or not all(
            isinstance(v, int) and v > 0 for v in (*window, *steps)):
        raise ValueError(f"topi.sliding_window: window_shape and strides are {ndim - axis} positive ints (one per "
                         f"axis from {axis}), got {window_shape!r} and {strides!r}")
    positions = [(data.shape[axis + d] - w) // s + 1 for d, (w, s) in enumerate(zip(window, steps))]

    def element(*i: Any) -> Any:
        at, inside = i[axis:axis + len(window)], i[axis + len(window):]
        return data[(*i[:axis], *(p * s + w for p, s, w in zip(at, steps, inside)))]
    return te.compute([*data.shape[:axis], *positions, *window], element, name="sliding_window", tag=tag.INJECTIVE)
