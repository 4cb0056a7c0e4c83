"""Intrinsics lowered for a target by their registered rules (TVM's LowerIntrin)."""

from __future__ import annotations

from lower.ir.stmt import Stmt
from lower.ir.stmt_functor import StmtMutator
from schedule.ir.expr import Call, Expr
from schedule.ir.extern_calls import check_rule_result, has_rules, lowering_rule
from schedule.ir.functor import ExprMutator


class _Calls(ExprMutator):
    """Arguments first: a rule sees its call with the arguments already lowered."""

    def __init__(self, target: str | tuple[str, ...]) -> None:
        self.target = target

    def visit_call(self, e: Call) -> Expr:
        inner = self.visit_default(e)
        assert isinstance(inner, Call)
        rule = lowering_rule(inner.name, self.target)
        return check_rule_result(inner.name, rule(inner)) if rule is not None else inner


class _Lower(StmtMutator):
    def __init__(self, target: str | tuple[str, ...]) -> None:
        self.calls = _Calls(target)

    def mutate_expr(self, e: Expr) -> Expr:
        return self.calls(e)


def lower_intrinsics(stmt: Stmt, target: str | tuple[str, ...]) -> Stmt:
    """*stmt* with every intrinsic that has a rule for *target* (the first of several names with
    one), or a default rule, rewritten."""
    if not has_rules(target):
        return stmt
    return _Lower(target)(stmt)
