"""Tensors stored in another tensor's storage (a scan's init, update and state are its output):
their realizes go, their provides and loads become the other tensor's (TVM's SchedulePostProc)."""

from __future__ import annotations

from collections.abc import Mapping

from lower.ir.stmt import Provide, Realize, Stmt
from lower.ir.stmt_functor import StmtMutator
from schedule.ir.expr import Expr, ProducerLoad
from schedule.ir.functor import ExprMutator
from schedule.operation.tensor import Tensor


class _Loads(ExprMutator):
    def __init__(self, aliases: Mapping[Tensor, Tensor]) -> None:
        self.aliases = aliases

    def visit_producer_load(self, e: ProducerLoad) -> Expr:
        inner = self.visit_default(e)
        assert isinstance(inner, ProducerLoad)
        target = self.aliases.get(e.producer)
        return ProducerLoad(target, inner.indices) if target is not None else inner


class _Aliases(StmtMutator):
    def __init__(self, aliases: Mapping[Tensor, Tensor]) -> None:
        self.aliases = aliases
        self.loads = _Loads(aliases)

    def mutate_expr(self, e: Expr) -> Expr:
        return self.loads(e)

    def visit_realize(self, s: Realize) -> object:
        if s.op.output(s.value_index) in self.aliases:
            return (yield s.body)
        return (yield from self.visit_default(s))

    def visit_provide(self, s: Provide) -> Stmt:
        target = self.aliases.get(s.op.output(s.value_index))
        value = self.mutate_expr(s.value)
        indices = tuple(self.mutate_expr(i) for i in s.indices)
        if target is None:
            return s if value is s.value and all(a is b for a, b in zip(indices, s.indices)) else \
                Provide(s.op, s.value_index, value, indices)
        return Provide(target.op, target.value_index, value, indices)


def store_aliases(stmt: Stmt, aliases: Mapping[Tensor, Tensor]) -> Stmt:
    """*stmt* with each tensor of *aliases* stored in (and read from) the tensor it maps to."""
    return _Aliases(aliases)(stmt)
