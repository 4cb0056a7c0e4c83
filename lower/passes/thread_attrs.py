"""One index per bound thread: nested ``thread_extent`` attributes of a thread already bound.

Several stages may bind the same thread IterVar; when one is computed inside another's
thread loop, the inner attribute would start the thread again. As TVM's ScheduleOps does, the
inner attribute goes and its body runs at the outer index. An inner extent smaller than the
outer one keeps only the threads below it (TVM requires the two to be equal).
"""

from __future__ import annotations

from dataclasses import replace

from bound import Analyzer
from lower.ir.stmt import AttrStmt, IfThenElse, Stmt
from lower.ir.stmt_functor import StmtMutator
from schedule import arith
from schedule.ir.expr import Expr
from schedule.ir.itervar import IterVar

THREAD_KEYS = ("thread_extent", "virtual_thread")


class _Merge(StmtMutator):
    def __init__(self) -> None:
        self.scope: dict[IterVar, Expr] = {}
        self.analyzer = Analyzer()

    def visit_attr_stmt(self, s: AttrStmt) -> Stmt:
        if s.key not in THREAD_KEYS or not isinstance(s.node, IterVar):
            return (yield self.visit_default(s))
        outer = self.scope.get(s.node)
        if outer is not None:
            body = yield s.body
            if self.analyzer.can_prove(arith.ge(s.value, outer)):
                return body
            return IfThenElse(arith.lt(s.node.var, s.value), body)
        self.scope[s.node] = s.value
        try:
            body = yield s.body
        finally:
            del self.scope[s.node]
        return s if body is s.body else replace(s, body=body)


def merge_thread_extents(stmt: Stmt) -> Stmt:
    """*stmt* with every thread attribute nested in one of the same thread removed."""
    return _Merge()(stmt)
