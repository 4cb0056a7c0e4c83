"""Substitution of variables in every expression of a statement."""

from __future__ import annotations

from collections.abc import Mapping

from lower.ir.stmt import Stmt
from lower.ir.stmt_functor import StmtMutator
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import substitute


class _Substituted(StmtMutator):
    def __init__(self, vmap: Mapping[Var, Expr]) -> None:
        self.vmap = vmap

    def mutate_expr(self, e: Expr) -> Expr:
        return substitute(e, self.vmap)


def substitute_stmt(s: Stmt, vmap: Mapping[Var, Expr]) -> Stmt:
    """*s* with each variable of *vmap* replaced by its value; *s* itself if none occurs."""
    return _Substituted(vmap)(s)
