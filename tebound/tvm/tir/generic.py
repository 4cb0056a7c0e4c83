"""TVM's ``tvm.tir.generic``: the arithmetic operators as functions, the default operations
of TOPI's scans (``binop=tvm.tir.generic.add``)."""

from __future__ import annotations

from typing import Any

from schedule.ir import arith


def add(lhs: Any, rhs: Any, span: Any = None) -> Any:
    """``lhs + rhs``."""
    return arith.add(lhs, rhs)


def subtract(lhs: Any, rhs: Any, span: Any = None) -> Any:
    """``lhs - rhs``."""
    return arith.sub(lhs, rhs)


def multiply(lhs: Any, rhs: Any, span: Any = None) -> Any:
    """``lhs * rhs``."""
    return arith.mul(lhs, rhs)


def divide(lhs: Any, rhs: Any, span: Any = None) -> Any:
    """``lhs / rhs``."""
    return arith.true_div(lhs, rhs)


def floordiv(lhs: Any, rhs: Any, span: Any = None) -> Any:
    """``lhs // rhs``, rounding down."""
    return arith.floordiv(lhs, rhs)


def cast(src: Any, dtype: str, span: Any = None) -> Any:
    """*src* as *dtype*."""
    return arith.cast(dtype, src)
