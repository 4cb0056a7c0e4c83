"""A statement mutator that keeps TVM's analyzer informed as it descends (TVM's
``IRMutatorWithAnalyzer``): a loop's variable takes the loop's range, a thread index its
launch's, an inlinable ``let`` its value, and each branch of an ``if`` is visited under its
condition (or the condition's negation). The passes of TVM's pass tests build on it."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lower.ir.stmt import AttrStmt, Evaluate, For, IfThenElse, LetStmt, Load, SeqStmt, Stmt, seq_items
from lower.ir.stmt_functor import StmtMutator
from schedule.ir import arith
from schedule.ir.expr import Call, Expr, IntImm, Not, ProducerLoad, Var
from schedule.ir.extern_calls import CallEffectKind
from schedule.ir.extern_stmt import ElemLoad
from schedule.ir.functor import post_order_visit, structural_equal
from schedule.ir.itervar import IterVar, Range
from tebound.tvm.arith.analyzer import Analyzer

#: Intrinsics without side effects (TVM's ``kPure`` operators) that calls here name.
PURE_CALLS = frozenset({
    "likely", "tvm_if_then_else", "if_then_else", "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt",
    "rsqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "atan2", "asinh", "acosh", "atanh",
    "erf", "sigmoid", "fabs", "abs", "floor", "ceil", "round", "trunc", "nearbyint", "pow", "power", "fmod",
    "isnan", "isinf", "isfinite", "popcount", "clz", "shift_left", "shift_right", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "reinterpret", "copysign", "hypot", "ldexp", "nextafter", "q_multiply_shift",
    "call_pure_extern", "fast_exp", "fast_erf", "fast_tanh", "ret", "tvm_tuple", "type_annotation",
})
Steps = Generator[Any, Any, Stmt]


def side_effect(e: Expr) -> CallEffectKind:
    """What evaluating *e* does besides computing it: nothing (pure), read memory (a load),
    or anything (a call this module does not know as pure)."""
    worst = CallEffectKind.Pure

    def see(x: Expr) -> None:
        nonlocal worst
        if isinstance(x, (Load, ElemLoad, ProducerLoad)):
            worst = max(worst, CallEffectKind.ReadState)
        elif isinstance(x, Call) and x.name not in PURE_CALLS:
            worst = max(worst, CallEffectKind.UpdateState)
    post_order_visit(e, see)
    return worst


def is_no_op(s: Stmt | None) -> bool:
    """An evaluation of an integer constant, or an empty sequence (TVM's ``is_no_op``)."""
    if s is None:
        return True
    if isinstance(s, Evaluate):
        return isinstance(s.value, IntImm)
    return isinstance(s, SeqStmt) and not s.seq


def no_op() -> Stmt:
    return Evaluate(arith.const(0))


def flat_seq(items: list[Stmt]) -> Stmt:
    """The statements in order, nested sequences spliced and ``T.evaluate(0)`` dropped (TVM's
    ``SeqStmt::Flatten``): none is ``T.evaluate(0)``, one is itself."""
    out = [x for x in seq_items(*items) if not (isinstance(x, Evaluate) and is_const(x.value, 0))]
    if not out:
        return no_op()
    return out[0] if len(out) == 1 else SeqStmt(tuple(out))


def is_const(e: Expr, value: int) -> bool:
    return isinstance(e, IntImm) and e.value == value


class AnalyzerMutator(StmtMutator):
    """See the module's docstring; :meth:`mutate_expr` is the identity here."""

    def __init__(self, analyzer: Analyzer | None = None) -> None:
        self.analyzer = analyzer or Analyzer()
        #: The extent each thread index was launched with.
        self.launched: dict[Var, Expr] = {}

    def mutate_expr(self, e: Expr) -> Expr:
        return e

    def visit_for(self, s: For) -> Steps:
        self.analyzer.bind(s.loop_var, Range.from_min_extent(s.min, s.extent), allow_override=True)
        return (yield from self.visit_default(s))

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        value = self.mutate_expr(s.value)
        if side_effect(value) <= CallEffectKind.Pure:
            self.analyzer.bind(s.var, value, allow_override=True)
        body = yield s.body
        if value is s.value and body is s.body:
            return s
        return LetStmt(s.var, value, body)

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        condition = self.mutate_expr(s.condition)
        real = condition.args[0] if isinstance(condition, Call) and condition.name == "likely" else condition
        with self.analyzer.constraint_scope(real):
            then_case = yield s.then_case
        else_case = None
        if s.else_case is not None:
            with self.analyzer.constraint_scope(self.analyzer.rewrite_simplify(Not(real))):
                else_case = yield s.else_case
        if is_const(real, 1):
            return then_case
        if is_const(real, 0):
            return else_case if else_case is not None else no_op()
        if condition is s.condition and then_case is s.then_case and else_case is s.else_case:
            return s
        return IfThenElse(condition, then_case, else_case)

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        if s.key in ("thread_extent", "virtual_thread") and isinstance(s.node, IterVar):
            var = s.node.var
            before = self.launched.get(var)
            if before is not None and not structural_equal(before, s.value):
                raise ValueError(f"thread index '{var.name}' is launched with extent {s.value} and with extent "
                                 f"{before}; TVM's analyzer binds a thread index to one range")
            self.launched[var] = s.value
            self.analyzer.bind(var, Range.from_min_extent(0, s.value), allow_override=True)
        return (yield from self.visit_default(s))

    def visit_seq_stmt(self, s: SeqStmt) -> Steps:
        items = []
        for x in s.seq:
            items.append((yield x))
        if all(a is b for a, b in zip(items, s.seq)):
            return s
        return flat_seq(items)
