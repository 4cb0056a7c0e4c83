"""TVM's ``tir.transform.Simplify`` (v0.13): every expression through TVM's analyzer (its
rewrite and canonical rules, in TVM's forms), with what the enclosing statements say: a loop's
range, an ``if``'s condition in its branches, an inlined ``let``. A condition the analyzer
proves picks its branch; a store of the value just loaded from the same place is dropped; a
``let`` of a constant, a variable or a pure integer value is inlined.

The ``"tir.Simplify"`` options of ``PassContext`` that change the rewrite rules are read
(``convert_boolean_to_and_of_ors``, ``apply_constraints_to_boolean_branches``,
``transitively_prove_inequalities``) where the analyzer has them. The two that propagate known
buffer values (``propagate_knowns_to_prove_conditional``, ``..._to_simplify_expressions``)
use :mod:`tebound.tvm.tir.dataflow`: the values known at a statement prove its conditions, or
also simplify a stored value.
"""

from __future__ import annotations

from lower.ir.stmt import Buffer, For, IfThenElse, LetStmt, Load, Stmt, Store
from lower.ir.stmt_functor import post_order_visit as stmt_post_order_visit
from schedule.base.pass_context import options
from schedule.ir import arith
from schedule.ir.expr import Expr, FloatImm, IntImm, Var
from schedule.ir.extern_calls import CallEffectKind
from schedule.ir.functor import free_vars, structural_equal, substitute
from schedule.ir.itervar import Range
from tebound.tvm.arith.analyzer import Analyzer
from tebound.tvm.tir.analyzer_mutator import AnalyzerMutator, Steps, no_op, side_effect
from tebound.tvm.tir.dataflow import BufferFlow


def _buffer_vars(body: Stmt) -> set[int]:
    """The variables the buffers of *body* are shaped or placed with (a let of one stays)."""
    buffers: dict[int, Buffer] = {}

    def see(x: object) -> None:
        if isinstance(x, (Load, Store)):
            buffers.setdefault(id(x.buffer), x.buffer)
    stmt_post_order_visit(body, see)
    return {id(v) for buf in buffers.values()
            for v in free_vars([*buf.extents, *(buf.pointer.exprs if buf.pointer is not None else ())])}


class StmtSimplifier(AnalyzerMutator):
    """See the module's docstring."""

    def __init__(self, analyzer: Analyzer, kept_vars: set[int], flow: BufferFlow | None = None,
                 knowns_in_expressions: bool = False) -> None:
        super().__init__(analyzer)
        self.kept_vars = kept_vars
        self.non_inlined: dict[Var, Expr] = {}
        #: Known buffer values: for conditions, and for every stored value if asked.
        self.flow = flow
        self.knowns_in_expressions = knowns_in_expressions

    def mutate_expr(self, e: Expr) -> Expr:
        return self.analyzer.simplify(e)

    def prove(self, condition: Expr, at: IfThenElse) -> bool | None:
        if self.non_inlined:
            condition = substitute(condition, self.non_inlined)
        if self.flow is not None:
            value = self.flow.simplify_in_context(condition, at, self.analyzer)
        else:
            value = self.analyzer.simplify(condition)
        return bool(value.value) if isinstance(value, IntImm) else None

    def visit_for(self, s: For) -> Steps:
        self.analyzer.bind(s.loop_var, Range.from_min_extent(s.min, s.extent), allow_override=True)
        with self.analyzer.constraint_scope(arith.ge(s.loop_var, s.min)):
            with self.analyzer.constraint_scope(arith.lt(s.loop_var, arith.add(s.min, s.extent))):
                return (yield from self.visit_default(s))

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        value = self.mutate_expr(s.value)
        inline = (isinstance(s.value, (IntImm, FloatImm, Var))
                  or (s.value.dtype.startswith("int") and side_effect(s.value) <= CallEffectKind.Pure))
        if inline:
            self.analyzer.bind(s.var, value, allow_override=True)
        elif side_effect(s.value) <= CallEffectKind.Pure:
            self.non_inlined[s.var] = value
        body = yield s.body
        if inline and id(s.var) not in self.kept_vars:
            return body
        if value is s.value and body is s.body:
            return s
        return LetStmt(s.var, value, body)

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        proved = self.prove(s.condition, s)
        if proved is True:
            return (yield s.then_case)
        if proved is False:
            return (yield s.else_case) if s.else_case is not None else no_op()
        return (yield from super().visit_if_then_else(s))

    def visit_store(self, s: Store) -> Stmt:
        value, index = self.mutate_expr(s.value), self.mutate_expr(s.index)
        if self.flow is not None and self.knowns_in_expressions:
            value = self.flow.simplify_in_context(s.value, s, self.analyzer)
        if isinstance(value, Load) and value.buffer is s.buffer and structural_equal(value.index, index):
            return no_op()
        if value is s.value and index is s.index:
            return s
        return Store(s.buffer, value, index, s.checks, s.checked)


def simplify(body: Stmt) -> Stmt:
    """*body* simplified as TVM's ``tir.transform.Simplify`` does, under the enclosing
    ``PassContext``'s ``"tir.Simplify"`` options."""
    config = options("tir.Simplify")
    analyzer = Analyzer()
    analyzer.extensions = {k for k, v in config.items() if v}
    in_expressions = bool(config.get("propagate_knowns_to_simplify_expressions"))
    flow = BufferFlow(body) if in_expressions or config.get("propagate_knowns_to_prove_conditional") else None
    return StmtSimplifier(analyzer, _buffer_vars(body), flow, in_expressions)(body)
