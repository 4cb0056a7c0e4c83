"""Transforms that join, cut or repeat tensors (TVM's ``topi.concatenate``, ``stack``,
``split``, ``tile``, ``repeat``), tagged ``injective``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.reduction import normalize_axes
from topi.transform.shape import tensor
from topi.utils import const_value


def _tensors(op: str, tensors: Any) -> list[Tensor]:
    if not isinstance(tensors, (list, tuple)) or not tensors:
        raise TypeError(f"topi.{op}: takes a non-empty list of tensors, got {tensors!r}")
    out = [tensor(op, t) for t in tensors]
    if len({len(t.shape) for t in out}) != 1 or len({t.dtype for t in out}) != 1:
        raise ValueError(f"topi.{op}: the tensors must have the same number of dimensions and dtype, got "
                         f"{[(list(map(str, t.shape)), t.dtype) for t in out]}")
    return out


def concatenate(a_tuple: Sequence[Tensor], axis: int = 0) -> Tensor:
    """The tensors joined along *axis*; every other dimension must agree."""
    parts = _tensors("concatenate", a_tuple)
    (axis,) = normalize_axes("concatenate", len(parts[0].shape), axis)
    for t in parts[1:]:
        for k, (x, y) in enumerate(zip(parts[0].shape, t.shape)):
            if k != axis and const_value(x) is not None and const_value(y) is not None and \
                    const_value(x) != const_value(y):
                raise ValueError(f"topi.concatenate: dimension {k} differs ({x} against {y})")
    starts: list[Any] = [arith.const(0, "int32")]
    for t in parts:
        starts.append(arith.add(starts[-1], t.shape[axis]))
    shape = list(parts[0].shape)
    shape[axis] = starts[-1]

    def element(*i: Any) -> Any:
        def read(k: int) -> Any:
            return parts[k][(*i[:axis], i[axis] - starts[k], *i[axis + 1:])]
        value = read(len(parts) - 1)
        for k in range(len(parts) - 2, -1, -1):  # each read under the condition that selects it
            value = te.if_then_else(i[axis] < starts[k + 1], read(k), value)
        return value
    return te.compute(shape, element, name="T_concat", tag=tag.INJECTIVE)


def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """The tensors stacked along a new axis *axis*."""
    parts = _tensors("stack", tensors)
    ndim = len(parts[0].shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim - 1 <= axis <= ndim:
        raise ValueError(f"topi.stack: axis {axis!r} is not within [{-ndim - 1}, {ndim}]")
    at = axis % (ndim + 1)
    shape = [*parts[0].shape[:at], len(parts), *parts[0].shape[at:]]

    def element(*i: Any) -> Any:
        rest = (*i[:at], *i[at + 1:])
        value = parts[-1][rest]
        for k in range(len(parts) - 2, -1, -1):
            value = te.if_then_else(i[at] == k, parts[k][rest], value)
        return value
    return te.compute(shape, element, name="T_stack", tag=tag.INJECTIVE)


def split(ary: Tensor, indices_or_sections: Any, axis: int = 0) -> list[Tensor]:
    """*ary* cut along *axis*: into that many equal parts (an int), or at those indices (a list).

    :raises ValueError: when the sections do not divide the axis, or the indices decrease.
    """
    ary = tensor("split", ary)
    (axis,) = normalize_axes("split", len(ary.shape), axis)
    length = const_value(ary.shape[axis])
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
        n = indices_or_sections
        if n < 1 or length is None or length % n:
            raise ValueError(f"topi.split: {n} sections do not divide axis {axis} of length {ary.shape[axis]}")
        cuts = [length // n * k for k in range(1, n)]
    elif isinstance(indices_or_sections, (list, tuple)) and all(isinstance(c, int) for c in indices_or_sections):
        cuts = list(indices_or_sections)
        if cuts != sorted(cuts) or (cuts and (cuts[0] < 0 or (length is not None and cuts[-1] > length))):
            raise ValueError(f"topi.split: indices {cuts} must increase within axis {axis} of length "
                             f"{ary.shape[axis]}")
    else:
        raise TypeError(f"topi.split: indices_or_sections must be an int or a list of ints, "
                        f"got {indices_or_sections!r}")
    bounds = [0, *cuts, ary.shape[axis]]
    return [_part(ary, axis, begin, end) for begin, end in zip(bounds[:-1], bounds[1:])]


def _part(ary: Tensor, axis: int, begin: Any, end: Any) -> Tensor:
    shape = list(ary.shape)
    shape[axis] = arith.sub(end, begin)
    return te.compute(shape, lambda *i: ary[(*i[:axis], i[axis] + begin, *i[axis + 1:])], name="T_split",
                      tag=tag.INJECTIVE)


def tile(a: Tensor, reps: Sequence[int]) -> Tensor:
    """*a* repeated ``reps[k]`` times along each axis k, as ``numpy.tile``."""
    a = tensor("tile", a)
    if not isinstance(reps, (list, tuple)) or not all(isinstance(r, int) and r >= 1 for r in reps):
        raise ValueError(f"topi.tile: reps must be a list of positive ints, got {reps!r}")
    ndim = max(len(a.shape), len(reps))
    reps = [1] * (ndim - len(reps)) + list(reps)
    base = [1] * (ndim - len(a.shape)) + list(a.shape)
    offset = ndim - len(a.shape)
    shape = [arith.mul(d, r) for d, r in zip(base, reps)]
    # An axis of length 0 has no element to repeat (nor any output element to read it).
    return te.compute(shape, lambda *i: a[tuple(i[offset + k] if const_value(d) == 0 else te.floormod(i[offset + k], d)
                                                for k, d in enumerate(a.shape))], name="T_tile", tag=tag.INJECTIVE)


def repeat(a: Tensor, repeats: int, axis: int) -> Tensor:
    """Each element of *a* repeated *repeats* times along *axis*, as ``numpy.repeat``."""
    a = tensor("repeat", a)
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"topi.repeat: repeats must be a positive int, got {repeats!r}")
    (axis,) = normalize_axes("repeat", len(a.shape), axis)
    shape = list(a.shape)
    shape[axis] = arith.mul(shape[axis], repeats)
    return te.compute(shape, lambda *i: a[(*i[:axis], te.floordiv(i[axis], repeats), *i[axis + 1:])],
                      name="T_repeat", tag=tag.INJECTIVE)


