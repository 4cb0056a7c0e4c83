"""Activations (TVM's ``topi.nn.relu``, ``leaky_relu``, ``prelu``)."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.reduction import normalize_axes
from topi.utils import const_value


def _tensor(op: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"topi.nn.{op}: takes a tensor, got {x!r}")
    return x


def relu(x: Tensor) -> Tensor:
    """``max(x, 0)``."""
    x = _tensor("relu", x)
    return te.compute(x.shape, lambda *i: te.max(x[i], arith.const(0, x.dtype)), tag=tag.ELEMWISE)


def leaky_relu(x: Tensor, alpha: float) -> Tensor:
    """*x* where positive, ``x * alpha`` elsewhere."""
    x = _tensor("leaky_relu", x)

    def element(*i: Any) -> Any:
        value = x[i]
        return te.select(value > 0, value, value * arith.const(alpha, x.dtype))
    return te.compute(x.shape, element, tag=tag.ELEMWISE)


def prelu(x: Tensor, slope: Tensor, axis: int = 1) -> Tensor:
    """:func:`leaky_relu` with one slope per element of *axis* (*slope* is 1-d).

    :raises ValueError: when *slope* does not have one element per element of *axis*.
    """
    x, slope = _tensor("prelu", x), _tensor("prelu", slope)
    (axis,) = normalize_axes("nn.prelu", len(x.shape), axis)
    known = const_value(slope.shape[0]) if len(slope.shape) == 1 else None, const_value(x.shape[axis])
    if len(slope.shape) != 1 or None not in known and known[0] != known[1]:
        raise ValueError(f"topi.nn.prelu: slope of shape {list(map(str, slope.shape))} must hold one value per "
                         f"element of axis {axis} ({x.shape[axis]})")

    def element(*i: Any) -> Any:
        value = x[i]
        return te.select(value > 0, value, value * slope[i[axis]])
    return te.compute(x.shape, element, tag=tag.BROADCAST)
