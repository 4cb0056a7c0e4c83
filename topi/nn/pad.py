"""Padding and dilation (TVM's ``topi.nn.pad`` and ``topi.nn.dilate``): index remappings that
read the input where it exists and give a constant elsewhere; both tagged ``injective``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.utils import const_value


def _widths(op: str, data: Tensor, widths: Any, what: str) -> list[Any]:
    if not isinstance(widths, (list, tuple)) or len(widths) != len(data.shape):
        raise ValueError(f"topi.{op}: {what} needs one value per dimension of the {len(data.shape)}-dimensional "
                         f"input, got {widths!r}")
    for w in widths:
        v = const_value(w)
        if isinstance(w, bool) or (v is None and not isinstance(w, te.Expr)) or (v is not None and v < 0):
            raise ValueError(f"topi.{op}: {what} {widths!r} has a negative or non-integer width")
    return list(widths)


def pad(data: Tensor, pad_before: Sequence[Any], pad_after: Sequence[Any] | None = None, pad_value: Any = 0.0,
        name: str = "PadInput", attrs: Any = None) -> Tensor:
    """*data* with *pad_before* elements before and *pad_after* (default: *pad_before*) after
    each dimension, those set to *pad_value*."""
    if not isinstance(data, Tensor):
        raise TypeError(f"topi.nn.pad: takes a tensor, got {data!r}")
    before = _widths("nn.pad", data, pad_before, "pad_before")
    after = _widths("nn.pad", data, pad_before if pad_after is None else pad_after, "pad_after")
    value = pad_value if isinstance(pad_value, te.Expr) else arith.const(pad_value, data.dtype)
    shape = [arith.add(arith.add(d, b), a) for d, b, a in zip(data.shape, before, after)]

    def element(*index: Any) -> Any:
        inside, source = [], []
        for i, d, b, a in zip(index, data.shape, before, after):
            source.append(i - b if const_value(b) != 0 else i)
            if const_value(b) != 0:
                inside.append(i >= b)
            if const_value(a) != 0:
                inside.append(i < arith.add(d, b))
        return te.if_then_else(te.all(*inside), data[tuple(source)], value) if inside else data[tuple(source)]
    return te.compute(shape, element, name=name, tag=tag.INJECTIVE + ",pad", attrs=attrs)


def dilate(data: Tensor, strides: Sequence[Any], dilation_value: Any = 0.0, name: str = "DilatedInput") -> Tensor:
    """*data* with ``strides[k] - 1`` elements of *dilation_value* between neighbours along
    dimension k (a dimension of n becomes ``(n - 1) * strides[k] + 1``)."""
    if not isinstance(data, Tensor):
        raise TypeError(f"topi.nn.dilate: takes a tensor, got {data!r}")
    steps = _widths("nn.dilate", data, strides, "strides")
    if any(const_value(s) == 0 for s in steps):
        raise ValueError(f"topi.nn.dilate: strides {list(strides)!r} must be at least 1")
    value = dilation_value if isinstance(dilation_value, te.Expr) else arith.const(dilation_value, data.dtype)
    shape = [arith.add(arith.mul(arith.sub(d, 1), s), 1) for d, s in zip(data.shape, steps)]

    def element(*index: Any) -> Any:
        on_grid, source = [], []
        for i, s in zip(index, steps):
            if const_value(s) == 1:
                source.append(i)
            else:
                on_grid.append(te.floormod(i, s) == 0)
                source.append(te.floordiv(i, s))
        return te.if_then_else(te.all(*on_grid), data[tuple(source)], value) if on_grid else data[tuple(source)]
    return te.compute(shape, element, name=name, tag=tag.INJECTIVE + ",dilate")
