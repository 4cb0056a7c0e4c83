"""Tensors of one value (TVM's ``topi.full`` and ``topi.full_like``), tagged ``elemwise``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag


def full(shape: Sequence[Any], dtype: str, fill_value: Any) -> Tensor:
    """A tensor of *shape* and *dtype* whose every element is *fill_value*.

    :raises TypeError: for a fill value that is not a number or a scalar expression.
    """
    value = arith.cast(dtype, arith.convert(fill_value))
    return te.compute(tuple(shape), lambda *i: value, name="T_full", tag=tag.ELEMWISE)


def full_like(x: Tensor, fill_value: Any) -> Tensor:
    """A tensor of *x*'s shape and dtype whose every element is *fill_value*.

    :raises TypeError: when *x* is not a tensor.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"topi.full_like: takes a tensor, got {x!r}")
    value = arith.cast(x.dtype, arith.convert(fill_value))
    return te.compute(x.shape, lambda *i: value, name="T_full_like", tag=tag.ELEMWISE)
