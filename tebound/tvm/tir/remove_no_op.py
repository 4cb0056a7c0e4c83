"""TVM's ``tir.transform.RemoveNoOp`` (v0.13): statements that change nothing go, keeping
what their expressions do besides computing (a call's effect): a store of the value already
there, an empty loop, branch, allocation or attribute, a ``let`` whose body does nothing or
does not use it, a loop of no iteration, an evaluation without effect.

With the ``"tir.RemoveNoOp"`` option ``use_dataflow_analysis``
(:mod:`tebound.tvm.tir.dataflow`), a store that is overwritten before anything reads it goes
too, and so does a store of the value known to be there already.
"""

from __future__ import annotations

from collections.abc import Sequence

from lower.ir.stmt import Allocate, AttrStmt, Evaluate, For, IfThenElse, LetStmt, Load, Stmt, Store
from lower.ir.stmt_functor import post_order_visit as stmt_post_order_visit
from schedule.base.pass_context import options
from schedule.ir import arith
from schedule.ir.expr import Expr, Var
from schedule.ir.extern_calls import CallEffectKind
from tebound.tvm.arith.analyzer import Analyzer
from tebound.tvm.tir.analyzer_mutator import AnalyzerMutator, Steps, flat_seq, is_const, is_no_op, no_op, side_effect
from tebound.tvm.tir.dataflow import BufferFlow


def _evaluate(values: Sequence[Expr]) -> Stmt:
    """The evaluations of *values* that do something besides reading (TVM's ``MakeEvaluate``)."""
    kept = [Evaluate(v) for v in values if side_effect(v) > CallEffectKind.ReadState]
    return flat_seq(kept) if kept else no_op()


def _uses(s: Stmt, var: Var) -> bool:
    found = False

    def see(x: object) -> None:
        nonlocal found
        found = found or x is var
    stmt_post_order_visit(s, see)
    return found


class NoOpRemover(AnalyzerMutator):
    """See the module's docstring."""

    def __init__(self, analyzer: Analyzer, flow: BufferFlow | None = None) -> None:
        super().__init__(analyzer)
        self.flow = flow

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        out = yield from super().visit_let_stmt(s)
        if not isinstance(out, LetStmt):
            return out
        if is_no_op(out.body):
            return _evaluate([out.value])
        if not _uses(out.body, out.var):
            if side_effect(out.value) > CallEffectKind.ReadState:
                return flat_seq([Evaluate(out.value), out.body])
            return out.body
        return out

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        if s.key == "pragma_debug_skip_region":
            return no_op()
        out = yield from super().visit_attr_stmt(s)
        if isinstance(out, AttrStmt) and is_no_op(out.body):
            return _evaluate([out.value] if isinstance(out.value, Expr) else [])
        return out

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        out = yield from super().visit_if_then_else(s)
        if not isinstance(out, IfThenElse):
            return out
        no_then = is_no_op(out.then_case)
        if out.else_case is not None:
            no_else = is_no_op(out.else_case)
            if no_then and no_else:
                return _evaluate([out.condition])
            if no_else:
                return IfThenElse(out.condition, out.then_case)
            if no_then:
                return IfThenElse(arith.logical_not(out.condition), out.else_case)
            return out
        return _evaluate([out.condition]) if no_then else out

    def visit_for(self, s: For) -> Steps:
        if self.analyzer.const_int_bound(s.extent).max_value <= 0:
            return no_op()
        out = yield from super().visit_for(s)
        if not isinstance(out, For):
            return out
        if is_const(out.extent, 0):
            return no_op()
        return _evaluate([out.min, out.extent]) if is_no_op(out.body) else out

    def visit_allocate(self, s: Allocate) -> Steps:
        out = yield from self.visit_default(s)
        return _evaluate(list(out.buffer.extents)) if is_no_op(out.body) else out

    def visit_evaluate(self, s: Evaluate) -> Stmt:
        return s if side_effect(s.value) > CallEffectKind.ReadState else no_op()

    def visit_store(self, s: Store) -> Stmt:
        def only_effects() -> Stmt:
            return _evaluate([s.value, s.index])
        if self.flow is not None and self.flow.overwritten(s):
            self.flow.remove_store(s)
            return only_effects()
        difference = arith.sub(s.value, Load(s.buffer, s.index))
        unchanged = arith.eq_node(difference, arith.const(0, difference.dtype))
        if self.flow is not None:
            same = self.flow.simplify_in_context(unchanged, s, self.analyzer)
        else:
            same = self.analyzer.simplify(unchanged)
        if is_const(same, 1):
            return only_effects()
        value = s.value
        if isinstance(value, Load) and value.buffer is s.buffer and self.analyzer.can_prove_equal(value.index, s.index):
            return only_effects()
        return s


def remove_no_op(body: Stmt) -> Stmt:
    """*body* without the statements that change nothing (see the module's docstring)."""
    flow = BufferFlow(body) if options("tir.RemoveNoOp").get("use_dataflow_analysis") else None
    return NoOpRemover(Analyzer(), flow)(body)

