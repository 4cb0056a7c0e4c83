"""Loop partitioning (TVM's LoopPartition pass): a loop whose body tests conditions on its
variable is cut into the range where every such condition is known (the middle), with the
tests replaced by their value, and the ranges before and after it, which keep them.

A condition is a ``likely(cond)`` guard (a split's tail guard, in a statement or an
expression), or, on a loop marked ``pragma_loop_partition_hint``, any ``if`` or
``if_then_else`` condition. For each, the values of the loop variable where it holds for every
iteration of the loops inside (and those where it fails for every one) form an interval; the
middle is where all hold, else where all fail. ``(i.outer*4 + i.inner) < n`` holds for every
``i.inner`` while ``i.outer < n/4``: the loop over ``i.outer`` becomes ``[0, n/4)`` with no guard,
then the rest with it. As in TVM:

- loops of constant extent are cut only with ``partition_const_loop`` (or a hint);
- each piece runs from 0 (its variable shifted), and a piece of one iteration becomes its body
  with the variable a constant, unless ``no_unroll_loop_with_extent_one``;
- a hinted loop with no interval is unrolled under ``unroll_loop_with_partition_hint_no_interval``;
- a block index (``blockIdx.*``) is cut into ``if (cond) {middle} else {loop body}``; thread
  indices of a block are left alone (their branches would put barriers under a condition), and
  so is a loop around a cross-thread reduction;
- after the pass no ``likely`` tag or partition hint is left.

Vectorized loops are not cut: their pieces would have extents that are not constants.
"""

from __future__ import annotations

import functools
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from bound import IntervalSet, eval_set, simplify
from bound.arith.linear import Linear
from lower.ir.stmt import NO_OP, AttrStmt, For, ForKind, IfThenElse, LetStmt, Stmt, seq
from lower.ir.stmt_functor import StmtMutator, ir_transform, stmt_children, stmt_exprs
from lower.ir.substitute import substitute_stmt
from schedule import arith
from schedule.base.pass_context import options
from schedule.ir.expr import EQ, GE, GT, LE, LT, NE, And, Call, Expr, Not, Var
from schedule.ir.functor import distinct_post_order, free_vars, structural_equal
from schedule.ir.itervar import IterVar, Range

Steps = Generator[Any, Any, Stmt]
HINT = "pragma_loop_partition_hint"
IF_THEN_ELSE = "tvm_if_then_else"


def loop_partition(stmt: Stmt, partition_const_loop: bool = False, no_unroll_loop_with_extent_one: bool = False,
                   unroll_loop_with_partition_hint_no_interval: bool = False) -> Stmt:
    """*stmt* with its loops partitioned as the module says."""
    options = _Options(partition_const_loop, no_unroll_loop_with_extent_one,
                       unroll_loop_with_partition_hint_no_interval, _hinted(stmt))
    return _strip_likely_and_hints(_Partition(options)(stmt))


def partition_options() -> dict[str, bool]:
    """The options of ``"tir.LoopPartition"`` in the current PassContext."""
    return {k: bool(v) for k, v in options("tir.LoopPartition").items()}


@dataclass(frozen=True)
class _Options:
    const_loops: bool
    keep_extent_one: bool
    unroll_hinted: bool
    hinted: frozenset[Var]


@dataclass(frozen=True)
class _Found:
    """A condition on the loop variable: *test* as written (replaced by its value where known)
    and the intervals ``[lo, hi)`` (None: unbounded) where it holds, and where it fails, for
    every value of the loops inside."""

    test: Expr
    holds: tuple[Expr | None, Expr | None] | None
    fails: tuple[Expr | None, Expr | None] | None


def _hinted(stmt: Stmt) -> frozenset[Var]:
    out = set()
    stack = [stmt]
    while stack:
        s = stack.pop()
        if isinstance(s, AttrStmt) and s.key == HINT and arith.value_of(s.value):
            out.add(s.node.var if isinstance(s.node, IterVar) else s.node)
        stack.extend(stmt_children(s))
    return frozenset(out)


class _Partition(StmtMutator):
    def __init__(self, options: _Options, settled: frozenset[Var] = frozenset(),
                 outer: dict[Var, Range] | None = None) -> None:
        self.options = options
        self.settled = settled  # loops already cut: pieces before and after keep their tests
        self.outer = outer or {}  # the ranges of the loops around, which cut points may use

    def _within(self, v: Var, lo: Expr, extent: Expr, s: Stmt) -> Steps:
        """*s* visited as usual, its children knowing *v*'s range."""
        saved = self.outer
        self.outer = {**saved, v: Range.from_min_extent(lo, extent)}
        try:
            return (yield from self.visit_default(s))
        finally:
            self.outer = saved

    def visit_for(self, s: For) -> Steps:
        v = s.loop_var
        hinted = v in self.options.hinted
        if v in self.settled or s.kind == ForKind.VECTORIZED or _has_allreduce(s.body) or not (
                hinted or self.options.const_loops or not _constant(s.min) or not _constant(s.extent)):
            return (yield from self._within(v, s.min, s.extent, s))
        found = _conditions(s.body, v, hinted)
        stop = arith.add(s.min, s.extent)
        middle = _middle(found, s.min, stop, self.outer)
        if middle is None:
            if hinted and self.options.unroll_hinted and _positive(s.extent):
                return For(v, s.min, s.extent, ForKind.UNROLLED, (yield s.body), s.annotations)
            return (yield from self._within(v, s.min, s.extent, s))
        begin, end, value, tests = middle
        pieces = [self._piece(s, s.min, begin, s.body, True)] if not _equal(begin, s.min, self.outer) else []
        pieces.append(self._piece(s, begin, end, _eliminate(s.body, tests, value), False))
        if not _equal(end, stop, self.outer):
            pieces.append(self._piece(s, end, stop, s.body, True))
        return seq(*pieces)

    def _piece(self, loop: For, begin: Expr, end: Expr, body: Stmt, settled: bool) -> Stmt:
        """The loop over ``[begin, end)`` from 0, or its body at the one value, partitioned in
        turn (a *settled* piece not again on this loop's tests)."""
        extent = simplify(arith.sub(end, begin), self.outer)
        if arith.value_of(extent) is not None and arith.value_of(extent) <= 0:
            return NO_OP
        v = loop.loop_var
        shifted = substitute_stmt(body, {v: arith.add(v, begin)}) if not _equal(begin, 0, self.outer) else body
        if arith.value_of(extent) == 1 and not self.options.keep_extent_one:
            return _Partition(self.options, self.settled, self.outer)(
                substitute_stmt(shifted, {v: arith.const(0, v.dtype)}))
        piece = For(v, arith.const(0, v.dtype), extent, loop.kind, shifted, loop.annotations)
        # A piece of constant extent is cut again on the tests that concern it (it is smaller, so
        # this ends); one of symbolic extent is not, for nothing would prove it smaller.
        again = not settled or _constant(extent)
        return _Partition(self.options, self.settled if again else self.settled | {v}, self.outer)(piece)

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        """A block index is cut into ``if (likely(begin <= v < end))`` over the body with the
        known tests replaced, else the body as it was (TVM's partition of a thread axis)."""
        if s.key != "thread_extent" or not isinstance(s.node, IterVar):
            return (yield from self.visit_default(s))
        v = s.node.var
        zero = arith.const(0, v.dtype)
        if (not s.node.thread_tag.startswith("blockIdx") or (_constant(s.value) and not self.options.const_loops)
                or _has_allreduce(s.body)):
            return (yield from self._within(v, zero, s.value, s))
        middle = _middle(_conditions(s.body, v, v in self.options.hinted), zero, s.value, self.outer)
        if middle is None:
            return (yield from self._within(v, zero, s.value, s))
        begin, end, value, tests = middle
        inside = [arith.ge(v, begin)] if not _equal(begin, zero, self.outer) else []
        inside += [arith.lt(v, end)] if not _equal(end, s.value, self.outer) else []
        known = yield _eliminate(s.body, tests, value)
        if not inside:
            return AttrStmt(s.node, s.key, s.value, known)
        kept = yield s.body
        cond = inside[0] if len(inside) == 1 else arith.and_op(inside[0], inside[1])
        return AttrStmt(s.node, s.key, s.value, IfThenElse(Call("bool", "likely", (cond,)), known, kept))


def _constant(e: Expr) -> bool:
    return arith.value_of(e) is not None


def _positive(e: Expr) -> bool:
    v = arith.value_of(simplify(e))
    return v is not None and v > 0


def _equal(a: Any, b: Any, ranges: dict[Var, Range]) -> bool:
    return arith.value_of(simplify(arith.sub(a, b), ranges)) == 0


def _has_allreduce(s: Stmt) -> bool:
    stack = [s]
    while stack:
        x = stack.pop()
        if any(isinstance(e, Call) and e.name == "tvm_thread_allreduce"
               for expr in stmt_exprs(x) for e in distinct_post_order(expr)):
            return True
        stack.extend(stmt_children(x))
    return False


def _conditions(body: Stmt, v: Var, hinted: bool) -> list[_Found]:
    """The conditions on *v* in *body* whose intervals can be told, inner loops relaxed."""
    found: list[_Found] = []
    stack: list[tuple[Stmt, dict[Var, IntervalSet]]] = [(body, {})]
    while stack:
        s, inner = stack.pop()
        tests = [e for expr in stmt_exprs(s) for e in _tests_in(expr, hinted)]
        if isinstance(s, IfThenElse) and hinted and not _is_likely(s.condition):
            tests.append(s.condition)
        for test in tests:
            cond = test.args[0] if _is_likely(test) else test
            if v in free_vars([cond]) and not any(structural_equal(test, f.test) for f in found):
                holds, fails = _interval(cond, v, inner), _interval(_negated(cond), v, inner)
                if holds is not None or fails is not None:
                    found.append(_Found(test, holds, fails))
        if isinstance(s, For):
            inner = {**inner, s.loop_var: IntervalSet.interval(s.min, arith.sub(arith.add(s.min, s.extent), 1))}
        elif isinstance(s, AttrStmt) and s.key == "thread_extent" and isinstance(s.node, IterVar):
            inner = {**inner, s.node.var: IntervalSet.interval(arith.const(0, s.value.dtype), arith.sub(s.value, 1))}
        elif isinstance(s, LetStmt):  # a value the interval may not use: not defined outside the loop
            inner = {**inner, s.var: IntervalSet.everything()}
        stack.extend((c, inner) for c in reversed(stmt_children(s)))
    return found


def _tests_in(e: Expr, hinted: bool) -> list[Expr]:
    """The ``likely`` calls in *e*, and with a hint the conditions of its ``if_then_else``."""
    out = []
    for x in distinct_post_order(e):
        if _is_likely(x):
            out.append(x)
        elif hinted and isinstance(x, Call) and x.name == IF_THEN_ELSE and not _is_likely(x.args[0]):
            out.append(x.args[0])
    return out


def _is_likely(e: Expr) -> bool:
    return isinstance(e, Call) and e.name == "likely" and len(e.args) == 1


def _negated(cond: Expr) -> Expr | None:
    flips = {LT: arith.ge, LE: arith.gt, GT: arith.le, GE: arith.lt}
    for kind, make in flips.items():
        if isinstance(cond, kind):
            return make(cond.a, cond.b)
    if isinstance(cond, Not):
        return cond.a
    return None


def _interval(cond: Expr | None, v: Var, inner: dict[Var, IntervalSet]) -> tuple[Expr | None, Expr | None] | None:
    """``[lo, hi)`` of the values of *v* where *cond* holds for every value of the *inner*
    variables (a bound None where it has none); None where that cannot be told."""
    if cond is None:
        return None
    if isinstance(cond, And):
        a, b = _interval(cond.a, v, inner), _interval(cond.b, v, inner)
        if a is None or b is None:
            return None
        return _meet(a[0], b[0], arith.max_expr), _meet(a[1], b[1], arith.min_expr)
    if isinstance(cond, EQ):  # v == c holds on [c, c + 1) exactly
        for side, other in ((cond.a, cond.b), (cond.b, cond.a)):
            if side is v and not any(u is v or u in inner for u in free_vars([other])):
                return other, simplify(arith.add(other, arith.const(1, other.dtype)))
        return None
    if isinstance(cond, NE):
        return None
    deduced = _deduce(cond, v, inner)
    if deduced is None:
        return None
    point, after = deduced
    return (point, None) if after else (None, point)


def _meet(a: Expr | None, b: Expr | None, pick: Any) -> Expr | None:
    return b if a is None else a if b is None else simplify(pick(a, b))


def _middle(found: list[_Found], lo: Expr, hi: Expr, ranges: dict[Var, Range]
            ) -> tuple[Expr, Expr, bool, list[Expr]] | None:
    """``(begin, end, value, tests)``: the part of ``[lo, hi)`` where every test of *tests* has
    *value*, clamped into the loop: all hold if such a part can be non-empty, else all fail. A
    test whose interval misses the loop is left out, as TVM leaves it."""
    for value in (True, False):
        chosen = [(f.test, i) for f in found if (i := f.holds if value else f.fails) is not None
                  and not _empty(_meet(i[0], lo, arith.max_expr), _meet(i[1], hi, arith.min_expr), ranges)]
        if not chosen:
            continue
        starts = [a for _, (a, _) in chosen if a is not None]
        stops = [b for _, (_, b) in chosen if b is not None]
        begin = lo if not starts else simplify(arith.min_expr(functools.reduce(arith.max_expr, starts, lo), hi), ranges)
        end = hi if not stops else simplify(arith.max_expr(functools.reduce(arith.min_expr, stops, hi), begin), ranges)
        if _empty(begin, end, ranges):
            continue
        return begin, end, value, [t for t, _ in chosen]
    return None


def _empty(begin: Expr | None, end: Expr | None, ranges: dict[Var, Range]) -> bool:
    """Whether ``[begin, end)`` is provably empty."""
    if begin is None or end is None:
        return False
    length = arith.value_of(simplify(arith.sub(end, begin), ranges))
    return length is not None and length <= 0


def _deduce(cond: Expr, v: Var, inner: dict[Var, IntervalSet]) -> tuple[Expr, bool] | None:
    """Where ``cond`` holds for every value of the *inner* variables: ``v < point`` (returns
    ``(point, False)``) or ``v >= point`` (``(point, True)``); None if it is not of that form."""
    if isinstance(cond, (LT, LE)):
        lhs, rhs = cond.a, cond.b
    elif isinstance(cond, (GT, GE)):
        lhs, rhs = cond.b, cond.a
    else:
        return None
    if not (lhs.dtype.startswith("int") and rhs.dtype.startswith("int")):
        return None
    # lhs < rhs (or <=): d = lhs - rhs < 0 (or < 1)
    slack = 1 if isinstance(cond, (LE, GE)) else 0
    lin = Linear.of(simplify(arith.sub(lhs, rhs)))
    k = lin.terms.get(v, 0)
    if not k or any(v in free_vars([atom]) for atom in lin.terms if atom is not v):
        return None
    rest = lin.plus(Linear(lin.dtype, terms={v: k}), -1).to_expr()
    hi = eval_set(rest, inner).max_value
    if not isinstance(hi, Expr) or any(x in inner for x in free_vars([hi])):
        return None
    # k*v + rest < slack for every inner value  <=>  k*v < slack - hi
    bound = arith.sub(arith.const(slack, hi.dtype), hi)
    if k > 0:  # v < ceil(bound / k): v <= floor((bound - 1) / k)
        return simplify(arith.add(arith.floordiv(arith.sub(bound, 1), k), 1)), False
    # k < 0: -|k|*v < bound  <=>  v > -bound/|k|  <=>  v >= floor(-bound/|k|) + 1
    return simplify(arith.add(arith.floordiv(arith.sub(arith.const(0, hi.dtype), bound), -k), 1)), True


def _eliminate(body: Stmt, tests: list[Expr], value: bool) -> Stmt:
    """*body* with each of *tests* known to be *value*: an ``if`` on one keeps the branch taken,
    an ``if_then_else`` its operand, and the test itself elsewhere becomes the constant."""
    def known(e: Any) -> bool:
        return isinstance(e, Expr) and any(structural_equal(e, t) for t in tests)

    def post(node: Any) -> Any:
        if isinstance(node, IfThenElse) and known(node.condition):
            return node.then_case if value else (node.else_case or NO_OP)
        if isinstance(node, Call) and node.name == IF_THEN_ELSE and known(node.args[0]):
            return node.args[1] if value else node.args[2]
        if known(node):
            return arith.const(1 if value else 0, "bool")
        return None
    return ir_transform(body, None, post)


def _strip_likely_and_hints(stmt: Stmt) -> Stmt:
    def post(node: Any) -> Any:
        if _is_likely(node):
            return node.args[0]
        if isinstance(node, AttrStmt) and node.key == HINT:
            return node.body
        return None
    return ir_transform(stmt, None, post)
