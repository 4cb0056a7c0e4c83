"""``T.assume(cond)`` statements removed before code is generated: a fact for the analysis
that computes nothing (TVM's ``RemoveAssume``)."""

from __future__ import annotations

from lower.ir.stmt import NO_OP, Evaluate, Stmt
from lower.ir.stmt_functor import StmtMutator
from schedule.ir.expr import Call


class _Remove(StmtMutator):
    def visit_evaluate(self, s: Evaluate) -> Stmt:
        return NO_OP if isinstance(s.value, Call) and s.value.name == "assume" else s


def remove_assume(stmt: Stmt) -> Stmt:
    """*stmt* without its ``assume`` statements."""
    return _Remove()(stmt)
