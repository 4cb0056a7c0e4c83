"""Reductions over axes (TVM's ``topi.sum``, ``topi.max``, ``topi.argmax``, ...): *axis* is None
(every axis), an int or a list of ints (negative from the end); *keepdims* keeps each reduced
axis with length 1. Tagged ``comm_reduce`` (``comm_reduce_idx`` for the index ones)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.utils import const_value


def normalize_axes(name: str, ndim: int, axis: Any) -> list[int]:
    """*axis* as a sorted list of distinct axes of an *ndim*-dimensional tensor.

    :raises ValueError: for an axis outside the tensor or given twice.
    """
    if axis is None:
        return list(range(ndim))
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int) or not -ndim <= a < ndim:
            raise ValueError(f"topi.{name}: axis {a!r} is not an axis of a {ndim}-dimensional tensor")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"topi.{name}: axis {axis!r} names an axis twice")
    return sorted(out)


class _Reduction:
    """The axes a reduction of *data* over *axis* removes (or keeps with length 1), its reduce
    axes, its output shape, and the input element an output index and the reduce axes read."""

    def __init__(self, name: str, data: Any, axis: Any, keepdims: bool) -> None:
        if not isinstance(data, Tensor):
            raise TypeError(f"topi.{name}: takes a tensor, got {data!r}")
        self.data, self.keepdims = data, keepdims
        self.axes = normalize_axes(name, len(data.shape), axis)
        self.raxis = [te.reduce_axis((0, data.shape[a]), name=f"k{a}") for a in self.axes]
        self.kept = [k for k in range(len(data.shape)) if k not in self.axes]
        self.shape = [1 if k in self.axes else data.shape[k] for k in range(len(data.shape))] if keepdims \
            else [data.shape[k] for k in self.kept]

    def element(self, index: Sequence[Any]) -> Any:
        spatial = iter([index[k] for k in self.kept] if self.keepdims else list(index))
        reduced = iter(self.raxis)
        return self.data[tuple(next(reduced) if k in self.axes else next(spatial)
                               for k in range(len(self.data.shape)))]


def _reduce(name: str, data: Tensor, axis: Any, keepdims: bool,
            combine: Callable[[Any, list[Any]], Any]) -> Tensor:
    r = _Reduction(name, data, axis, keepdims)
    return te.compute(r.shape, lambda *index: combine(r.element(index), r.raxis), name=f"T_{name}",
                      tag=tag.COMM_REDUCE)


def sum(data: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001 - TVM's name
    """The sum over *axis*."""
    return _reduce("sum", data, axis, keepdims, lambda v, r: te.sum(v, axis=r) if r else v)


def max(data: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001 - TVM's name
    """The largest element over *axis*."""
    return _reduce("max", data, axis, keepdims, lambda v, r: te.max(v, axis=r) if r else v)


def min(data: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001 - TVM's name
    """The smallest element over *axis*."""
    return _reduce("min", data, axis, keepdims, lambda v, r: te.min(v, axis=r) if r else v)


_product = te.comm_reducer(lambda x, y: x * y, lambda t: arith.const(1, t), name="prod")


def prod(data: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """The product over *axis*."""
    return _reduce("prod", data, axis, keepdims, lambda v, r: _product(v, axis=r) if r else v)


_all = te.comm_reducer(lambda x, y: arith.logical_and(x, y), lambda t: arith.const(True, t), name="all")
_any = te.comm_reducer(lambda x, y: arith.logical_or(x, y), lambda t: arith.const(False, t), name="any")


def all(data: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001 - TVM's name
    """Whether every element over *axis* is true (a bool tensor)."""
    return _reduce("all", _bool("all", data), axis, keepdims, lambda v, r: _all(v, axis=r) if r else v)


def any(data: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001 - TVM's name
    """Whether some element over *axis* is true (a bool tensor)."""
    return _reduce("any", _bool("any", data), axis, keepdims, lambda v, r: _any(v, axis=r) if r else v)


def _bool(name: str, data: Tensor) -> Tensor:
    if not isinstance(data, Tensor) or data.dtype != "bool":
        raise TypeError(f"topi.{name}: reduces a bool tensor, got {data!r}")
    return data


def collapse_sum(data: Tensor, target_shape: Any) -> Tensor:
    """*data* summed down to *target_shape*, which it broadcasts from: over its leading axes that
    *target_shape* lacks and the axes where *target_shape* is 1 and *data* is not (TVM's).

    :raises ValueError: when *target_shape* has more dimensions than *data*.
    """
    if not isinstance(data, Tensor):
        raise TypeError(f"topi.collapse_sum: takes a tensor, got {data!r}")
    target = list(target_shape)
    extra = len(data.shape) - len(target)
    if extra < 0:
        raise ValueError(f"topi.collapse_sum: target shape {target} has more dimensions than the data's "
                         f"{len(data.shape)}")
    summed = [k for k in range(len(data.shape))
              if k < extra or (const_value(target[k - extra]) == 1 and const_value(data.shape[k]) != 1)]
    raxis = {k: te.reduce_axis((0, data.shape[k]), name=f"k{k}") for k in summed}

    def element(*i: Any) -> Any:
        at = [raxis[k] if k in raxis else i[k - extra] for k in range(len(data.shape))]
        value = data[tuple(at)]
        return te.sum(value, axis=list(raxis.values())) if raxis else value
    shape = [arith.const(1, "int32") if k + extra in raxis else data.shape[k + extra] for k in range(len(target))]
    return te.compute(shape, element, name="T_collapse_sum", tag=tag.COMM_REDUCE)


def index_reducer(larger: bool) -> Any:
    """The reducer of (index, value) pairs keeping the largest (or smallest) value, the first
    index on a tie; its identity is (-1, the lowest or highest value)."""
    def combine(x: Sequence[Any], y: Sequence[Any]) -> tuple[Any, Any]:
        # the first index wins a tie, as NumPy's argmax and argmin choose
        better = (y[1] > x[1]) if larger else (y[1] < x[1])
        tie = (y[1] == x[1]) & (y[0] < x[0])
        take = better | tie
        return te.select(take, y[0], x[0]), te.select(take, y[1], x[1])

    def identity(t_index: str, t_value: str) -> tuple[Any, Any]:
        return arith.const(-1, t_index), (te.min_value(t_value) if larger else te.max_value(t_value))
    return te.comm_reducer(combine, identity, name="argmax" if larger else "argmin")


def _arg(name: str, data: Tensor, axis: Any, keepdims: bool, larger: bool) -> Tensor:
    r = _Reduction(name, data, axis, keepdims)
    reducer = index_reducer(larger)

    def body(*index: Any) -> Any:
        flat: Any = arith.const(0, "int32")  # the index within the reduced axes, row-major
        for a, k in zip(r.axes, r.raxis):
            flat = flat * data.shape[a] + k.var.astype("int32")
        return reducer((flat, r.element(index)), axis=r.raxis)
    index, _ = te.compute(r.shape, body, name=f"T_{name}", tag=tag.COMM_REDUCE_IDX)
    return index


def argmax(data: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """The index (int32, row-major within the reduced axes) of the largest element over *axis*;
    the first one on a tie."""
    return _arg("argmax", data, axis, keepdims, True)


def argmin(data: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """The index of the smallest element over *axis*, as :func:`argmax`."""
    return _arg("argmin", data, axis, keepdims, False)
