"""Simplification of lowered statements with the ranges of the loops around each expression.

Conditions that the ranges prove true disappear with their ``if``; loops of extent 1 become
their minimum unless kept; sequences drop no-ops.
"""

from __future__ import annotations

from dataclasses import replace

from bound import Analyzer
from lower.ir.stmt import AttrStmt, For, IfThenElse, LetStmt, SeqStmt, Stmt, Store, is_no_op, seq
from lower.ir.stmt_functor import StmtMutator
from lower.ir.substitute import substitute_stmt
from schedule import arith
from schedule.ir.expr import Call, Expr, IntImm
from schedule.ir.itervar import IterVar, Range


class _Simplify(StmtMutator):
    def __init__(self, keep_trivial: bool) -> None:
        self.analyzer = Analyzer()
        self.keep_trivial = keep_trivial

    def mutate_expr(self, e: Expr) -> Expr:
        return self.analyzer.simplify(e)

    def visit_for(self, s: For) -> Stmt:
        lo, extent = self.mutate_expr(s.min), self.mutate_expr(s.extent)
        if arith.value_of(extent) == 1 and not self.keep_trivial:
            return (yield substitute_stmt(s.body, {s.loop_var: lo}))
        if arith.value_of(extent) is not None and arith.value_of(extent) <= 0:
            return SeqStmt(())
        if arith.value_of(extent) != 1:
            # A kept loop of extent 1 stays a variable, as TVM's simplifier leaves it.
            self.analyzer.bind(s.loop_var, Range.from_min_extent(lo, extent))
        body = yield s.body
        if is_no_op(body):
            return body
        return For(s.loop_var, lo, extent, s.kind, body, s.annotations)

    def visit_attr_stmt(self, s: AttrStmt) -> Stmt:
        if s.key in ("thread_extent", "virtual_thread") and isinstance(s.node, IterVar):
            self.analyzer.bind(s.node.var, Range.from_min_extent(0, s.value))
        return super().visit_default(s)

    def visit_if_then_else(self, s: IfThenElse) -> Stmt:
        cond = self.mutate_expr(s.condition)
        test = cond.args[0] if isinstance(cond, Call) and cond.name == "likely" else cond
        if isinstance(test, IntImm):
            chosen = s.then_case if test.value else s.else_case
            return (yield chosen) if chosen is not None else SeqStmt(())
        then = yield s.then_case
        other = (yield s.else_case) if s.else_case is not None else None
        return IfThenElse(cond, then, other)

    def visit_seq_stmt(self, s: SeqStmt) -> Stmt:
        out = []
        for x in s.seq:
            out.append((yield x))
        return seq(*out)

    def visit_store(self, s: Store) -> Stmt:
        value, index = self.mutate_expr(s.value), self.mutate_expr(s.index)
        # The checks are evaluated, never printed: simplifying them buys nothing.
        return s if value is s.value and index is s.index else replace(s, value=value, index=index)

    def visit_let_stmt(self, s: LetStmt) -> Stmt:
        value = self.mutate_expr(s.value)
        return LetStmt(s.var, value, (yield s.body))


def simplify_stmt(s: Stmt, *, keep_trivial: bool = False) -> Stmt:
    """*s* simplified under the ranges of its loops."""
    return _Simplify(keep_trivial)(s)
