"""TVM's ``tvm.tir.stmt_functor``: ``post_order_visit``, ``ir_transform`` and ``substitute``
over statements and expressions (an ``ir_builder`` body is lowered first)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lower.ir.stmt import Stmt
from lower.ir.stmt_functor import post_order_visit
from lower.ir.substitute import substitute_stmt
from lower.module import as_stmt
from lower.transform import ir_transform
from schedule.ir import arith
from schedule.ir.functor import substitute as substitute_expr


def substitute(node: Any, vmap: Mapping[Any, Any]) -> Any:
    """*node* (an expression or a statement) with the variables of *vmap* replaced."""
    values = {k: arith.convert(v) for k, v in vmap.items()}
    if isinstance(node, Stmt) or not isinstance(node, arith.Expr):
        return substitute_stmt(as_stmt(node, "substitute") if not isinstance(node, Stmt) else node, values)
    return substitute_expr(node, values)


__all__ = ["ir_transform", "post_order_visit", "substitute"]
