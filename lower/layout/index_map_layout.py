"""The storage of a tensor whose layout ``transform_layout`` changed: row-major over the
physical shape, at the physical indices the mapping gives (the same interface as
:class:`lower.Layout`, which flattening and argument binding use)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from schedule import arith
from schedule.ir.expr import Expr
from schedule.ir.functor import substitute


class IndexMapLayout:
    """Logical ``dims`` stored at ``physical(index)`` of a row-major ``physical_shape``."""

    def __init__(self, dtype: str, dims: tuple[int, ...], transform: Any) -> None:
        self.dtype = dtype
        self.dims = dims
        self.transform = transform
        self.physical_shape = tuple(transform.shape)

    @property
    def physical_size(self) -> int:
        return math.prod(self.physical_shape)

    def linear_index_expr(self, index: Sequence[Expr]) -> Expr:
        """The flat position of the element at logical *index*."""
        vmap = dict(zip(self.transform.logical, index))
        flat: Expr = arith.const(0)
        for e, n in zip(self.transform.physical, self.physical_shape):
            flat = arith.add(arith.mul(flat, n), substitute(e, vmap))
        return flat

    def __str__(self) -> str:
        names = ", ".join(v.name for v in self.transform.logical)
        return f"({names}) -> ({', '.join(map(str, self.transform.physical))}) in {list(self.physical_shape)}"
