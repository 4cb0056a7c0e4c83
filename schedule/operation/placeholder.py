"""Placeholders: the input tensors of a program."""

from __future__ import annotations

from typing import Any

from schedule.base.checks import check_name
from schedule.ir.dtype import check_dtype
from schedule.ir.expr import Expr
from schedule.operation.tensor import Operation, Tensor, _node, _shape


@_node
class PlaceholderOp(Operation):
    """An input tensor of the program."""

    name: str
    shape: tuple[Expr, ...]
    dtype: str = "float32"
    tag: str = ""

    def output_shape(self, index: int) -> tuple[Expr, ...]:
        return self.shape

    def output_dtype(self, index: int) -> str:
        return self.dtype


def placeholder(shape: Any, dtype: str = "float32", name: str = "placeholder") -> Tensor:
    """An input tensor of *shape* (ints or integer expressions such as ``te.var("n")``)."""
    check_name("placeholder", name)
    dims = _shape(shape, f"placeholder '{name}'")
    return PlaceholderOp(name, dims, check_dtype(dtype)).output(0)
