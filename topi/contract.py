"""Tensor contractions (TVM's ``topi.tensordot`` and ``topi.matmul``): sums of products over
pairs of axes, one reduction axis per pair, as NumPy's ``tensordot`` and ``matmul`` compute."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from topi.nn.dense import matmul as nn_matmul
from topi.utils import const_value


def _pairs(a: Tensor, b: Tensor, axes: Any) -> tuple[list[int], list[int]]:
    """The axes of *a* and of *b* to contract, from NumPy's forms of *axes*."""
    if isinstance(axes, int):
        if not 0 <= axes <= min(len(a.shape), len(b.shape)):
            raise ValueError(f"topi.tensordot: axes={axes} is more than the tensors' ranks "
                             f"({len(a.shape)}, {len(b.shape)})")
        return list(range(len(a.shape) - axes, len(a.shape))), list(range(axes))
    if isinstance(axes, Sequence) and len(axes) == 2:
        left, right = axes
        left = [left] if isinstance(left, int) else list(left)
        right = [right] if isinstance(right, int) else list(right)
        if len(left) == len(right) and all(isinstance(x, int) for x in left + right):
            for ax, t in [(x, a) for x in left] + [(x, b) for x in right]:
                if not -len(t.shape) <= ax < len(t.shape):
                    raise ValueError(f"topi.tensordot: axis {ax} is out of range for shape {list(map(str, t.shape))}")
            return [x % len(a.shape) for x in left], [x % len(b.shape) for x in right]
    raise ValueError(f"topi.tensordot: axes is an int or a pair of axis lists of one length, not {axes!r}")


def tensordot(a: Tensor, b: Tensor, axes: Any) -> Tensor:
    """The sum over the paired axes of *a* and *b* of their products (NumPy's ``tensordot``):
    *axes* is a count (the last of *a* with the first of *b*) or two lists of axes.

    :raises TypeError: when an operand is not a tensor.
    :raises ValueError: for axes out of range, or paired axes of different extents.
    """
    for what, t in (("a", a), ("b", b)):
        if not isinstance(t, Tensor):
            raise TypeError(f"topi.tensordot: {what} must be a tensor, got {t!r}")
    left, right = _pairs(a, b, axes)
    for x, y in zip(left, right):
        ex, ey = const_value(a.shape[x]), const_value(b.shape[y])
        if ex is not None and ey is not None and ex != ey:
            raise ValueError(f"topi.tensordot: axis {x} of a ({ex}) and axis {y} of b ({ey}) differ")
    free_a = [k for k in range(len(a.shape)) if k not in left]
    free_b = [k for k in range(len(b.shape)) if k not in right]
    shape = [a.shape[k] for k in free_a] + [b.shape[k] for k in free_b]
    ks = [te.reduce_axis((0, a.shape[x]), name=f"k{n}") for n, x in enumerate(left)]

    def element(*idx: Any) -> Any:
        ia, ib = [None] * len(a.shape), [None] * len(b.shape)
        for k, i in zip(free_a, idx[:len(free_a)]):
            ia[k] = i
        for k, i in zip(free_b, idx[len(free_a):]):
            ib[k] = i
        for r, x, y in zip(ks, left, right):
            ia[x], ib[y] = r, r
        product = a[tuple(ia)] * b[tuple(ib)]
        return te.sum(product, axis=ks) if ks else product

    return te.compute(shape, element, name="T_tensordot")


def matmul(a: Tensor, b: Tensor, transp_a: bool = False, transp_b: bool = False) -> Tensor:
    """The product of two matrices, either transposed first (TVM's ``topi.matmul``)."""
    return nn_matmul(a, b, transpose_a=transp_a, transpose_b=transp_b)
