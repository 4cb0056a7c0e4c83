"""TVM's symbolic interval sets and their evaluator (``arith/int_set.cc``).

An :class:`IntervalSet` is ``[min, max]`` (inclusive) with expression ends or infinities; a
point is an interval whose two ends are the same object. :func:`eval_set` evaluates an
expression over intervals of its variables with TVM's rules. The rules that TVM tightened
after the InferBound document are switched by :class:`Rules`: ``FAITHFUL`` is the document's
TVM, ``TVM_V013`` the TVM of v0.7 to v0.13 (``tebound.tvm``'s bounds, which TVM's own tests
expect), and ``TIGHT`` the later releases plus sound replacements for TVM's approximations,
used by exact mode when isl cannot help.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bound.arith.analyzer import Analyzer
from bound.arith.intset import IntSet
from bound.arith.linear import Linear
from bound.arith.simplify import simplify
from schedule import arith
from schedule.ir.dtype import is_int
from schedule.ir.expr import (
    Add,
    Call,
    Cast,
    CmpOp,
    Div,
    Expr,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    ProducerLoad,
    Select,
    Sub,
    Var,
)
from schedule.ir.functor import ExprFunctor, post_order_visit
from schedule.ir.itervar import Range


class _Infinity:
    def __init__(self, sign: int) -> None:
        self.sign = sign

    def same_as(self, other: object) -> bool:
        """Identity, as TVM's ``same_as`` of its symbolic limits."""
        return self is other

    def __repr__(self) -> str:
        return "pos_inf" if self.sign > 0 else "neg_inf"


NEG_INF = _Infinity(-1)
POS_INF = _Infinity(1)
End = Any  # an Expr, NEG_INF or POS_INF


@dataclass(frozen=True)
class Rules:
    """Which version of TVM's interval rules to follow."""

    #: FloorMod of an interval that stays within one quotient keeps its shape (v0.7+).
    floormod_same_quotient: bool
    #: PassUpDomain through fuse gives a tight box when the fused set stays within a row (v0.6+).
    fuse_aligned_box: bool
    #: A split child that would exceed its parent's extent gets the parent's extent (v0.7+).
    split_tighten: bool
    #: Clamp a request to the tensor shape: "per_end" (document), "both_or_none" (v0.7+: both
    #: ends when the request provably covers the shape, else none), or "intersect" (exact mode).
    clamp: str
    #: Sound replacements for TVM's shortcuts (if_then_else branches, signed truncated mod).
    sound: bool


FAITHFUL = Rules(floormod_same_quotient=False, fuse_aligned_box=False, split_tighten=False,
                 clamp="per_end", sound=False)
TVM_V013 = Rules(floormod_same_quotient=True, fuse_aligned_box=True, split_tighten=True,
                 clamp="both_or_none", sound=False)
TIGHT = Rules(floormod_same_quotient=True, fuse_aligned_box=True, split_tighten=True,
              clamp="intersect", sound=True)


def _finite(x: End) -> bool:
    return not isinstance(x, _Infinity)


class IntervalSet(IntSet):
    """``[min_value, max_value]``; ends are expressions or :data:`NEG_INF` / :data:`POS_INF`."""

    __slots__ = ("min_value", "max_value")

    def __init__(self, min_value: End, max_value: End) -> None:
        # Python integers (TVM's ``IntervalSet(2, 3)``) become int32 constants.
        self.min_value = arith.const(min_value) if type(min_value) is int else min_value
        self.max_value = arith.const(max_value) if type(max_value) is int else max_value

    # -- constructors -------------------------------------------------------------------------
    @staticmethod
    def point(e: Expr) -> IntervalSet:
        return IntervalSet(e, e)

    @staticmethod
    def interval(a: End, b: End) -> IntervalSet:
        return IntervalSet(a, a) if a is b else IntervalSet(a, b)

    @staticmethod
    def everything() -> IntervalSet:
        return IntervalSet(NEG_INF, POS_INF)

    @staticmethod
    def empty() -> IntervalSet:
        return IntervalSet(POS_INF, NEG_INF)

    @staticmethod
    def from_range(r: Range) -> IntervalSet:
        if isinstance(r.extent, IntImm) and r.extent.value == 1:
            return IntervalSet.point(r.min)
        return IntervalSet(r.min, arith.sub(arith.add(r.min, r.extent), 1))

    # -- queries ------------------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return 1

    def is_single_point(self) -> bool:
        return self.min_value is self.max_value and _finite(self.min_value)

    def is_everything(self) -> bool:
        return self.min_value is NEG_INF and self.max_value is POS_INF

    def is_empty(self) -> bool:
        return self.min_value is POS_INF or self.max_value is NEG_INF

    def is_nothing(self) -> bool:
        """TVM's name of :meth:`is_empty`."""
        return self.is_empty()

    def has_lower_bound(self) -> bool:
        return _finite(self.min_value) and not self.is_empty()

    def has_upper_bound(self) -> bool:
        return _finite(self.max_value) and not self.is_empty()

    def box(self) -> tuple[IntervalSet, ...]:
        return (self,)

    def match_range(self, r: Range) -> bool:
        """Both ends finite and provably equal to those of *r*."""
        if not (self.has_lower_bound() and self.has_upper_bound()):
            return False
        lo_ok = simplify(arith.sub(self.min_value, r.min))
        hi_ok = simplify(arith.sub(self.max_value, arith.sub(arith.add(r.min, r.extent), 1)))
        return arith.value_of(lo_ok) == 0 and arith.value_of(hi_ok) == 0

    def cover_range(self, default: Range) -> Range:
        """The range ``[min, max]`` if both ends are finite, else *default*."""
        if self.has_lower_bound() and self.has_upper_bound():
            lo = simplify(self.min_value)
            return Range.from_min_extent(lo, simplify(arith.sub(arith.add(self.max_value, 1), self.min_value)))
        if self.is_empty():
            return Range.from_min_extent(default.min, 0)
        return default

    def union(self, other: IntSet) -> IntervalSet:
        assert isinstance(other, IntervalSet)
        return union([self, other])

    def intersect(self, other: IntSet) -> IntervalSet:
        assert isinstance(other, IntervalSet)
        if self.is_empty() or other.is_empty():
            return IntervalSet.empty()
        return IntervalSet(_max_end(self.min_value, other.min_value), _min_end(self.max_value, other.max_value))

    def __repr__(self) -> str:
        return f"IntervalSet[{self.min_value}, {self.max_value}]"


def _min_end(a: End, b: End) -> End:
    if a is NEG_INF or b is NEG_INF:
        return NEG_INF
    if a is POS_INF:
        return b
    if b is POS_INF:
        return a
    return arith.min_expr(a, b)


def _max_end(a: End, b: End) -> End:
    if a is POS_INF or b is POS_INF:
        return POS_INF
    if a is NEG_INF:
        return b
    if b is NEG_INF:
        return a
    return arith.max_expr(a, b)


def union_lower_bound(sets: Sequence[IntervalSet], analyzer: Any = None) -> IntervalSet:
    """A set inside the union of *sets* (TVM's ``UnionLowerBound``): the sets taken in order,
    each joined to the hull so far when the two provably touch or overlap, dropped otherwise."""
    prove = (analyzer or Analyzer()).can_prove
    low: End = None
    high: End = None
    for s in sets:
        if low is None:
            low, high = s.min_value, s.max_value
            continue
        joins_after = s.min_value is NEG_INF or high is POS_INF or (
            s.min_value is not POS_INF and high is not NEG_INF and prove(s.min_value <= high + 1))
        joins_before = low is NEG_INF or s.max_value is POS_INF or (
            low is not POS_INF and s.max_value is not NEG_INF and prove(low <= s.max_value + 1))
        if joins_after and joins_before:
            low, high = _min_end(low, s.min_value), _max_end(high, s.max_value)
    return IntervalSet.empty() if low is None else IntervalSet(low, high)


def union(sets: Sequence[IntervalSet]) -> IntervalSet:
    """The hull of *sets*, simplified without ranges (TVM's ``Union``); empty for no sets."""
    sets = [s for s in sets if not s.is_empty()]
    if not sets:
        return IntervalSet.empty()
    if len(sets) == 1:
        return sets[0]
    lo, hi = sets[0].min_value, sets[0].max_value
    for s in sets[1:]:
        new_lo = _constant_apart(lo, s.min_value, min)
        new_hi = _constant_apart(hi, s.max_value, max)
        lo = new_lo if new_lo is not None else _min_end(lo, s.min_value)
        hi = new_hi if new_hi is not None else _max_end(hi, s.max_value)
    return IntervalSet(_tidy(lo), _tidy(hi))


def _constant_apart(a: End, b: End, pick: Any) -> End | None:
    """The smaller (larger) of two ends that differ by a constant, without a ``min``/``max``
    node; None if they do not (or are infinite). Deep attach nests make long sums that differ
    only in their constant term; comparing them this way keeps each union linear in size."""
    if not (_finite(a) and _finite(b)) or not is_int(a.dtype):
        return None
    diff = Linear.of(arith.sub(a, b))
    if not diff.is_const:
        return None
    return a if pick(diff.const, 0) == diff.const else b


def _tidy(e: End) -> End:
    """*e* simplified when a ``min``/``max`` was built (TVM simplifies every union)."""
    if not _finite(e):
        return e

    found = []
    post_order_visit(e, lambda x: found.append(x) if isinstance(x, (Min, Max)) else None)
    return simplify(e) if found else e


class _Evaluator(ExprFunctor[IntervalSet]):
    bottom_up = False  # re-evaluating relaxed ends depends on how deep the evaluation is

    def __init__(self, dom_map: Mapping[Var, IntervalSet], analyzer: Analyzer, rules: Rules) -> None:
        self._dom = dom_map
        self._ana = analyzer
        self._rules = rules
        self._depth = 0

    def eval_set(self, s: IntervalSet) -> IntervalSet:
        """Re-evaluate the ends of *s*, whose expressions may mention relaxed variables."""
        if self._depth >= len(self._dom):
            return s
        self._depth += 1
        lo = self(s.min_value).min_value if _finite(s.min_value) else s.min_value
        hi = self(s.max_value).max_value if _finite(s.max_value) else s.max_value
        self._depth -= 1
        return IntervalSet.interval(lo, hi)

    def visit_int_imm(self, e: IntImm) -> IntervalSet:
        return IntervalSet.point(e)

    def visit_float_imm(self, e: FloatImm) -> IntervalSet:
        return IntervalSet.point(e)

    def visit_var(self, e: Var) -> IntervalSet:
        s = self._dom.get(e)
        if s is None:
            return IntervalSet.point(e)
        if s.min_value is e and s.max_value is e:
            return s
        return self.eval_set(s)

    def visit_default(self, e: Expr) -> IntervalSet:
        if isinstance(e, CmpOp):
            a, b = self(e.a), self(e.b)
            if a.is_single_point() and b.is_single_point():
                return IntervalSet.point(type(e)(a.min_value, b.min_value) if (
                    a.min_value is not e.a or b.min_value is not e.b) else e)
            return IntervalSet(arith.const(0, "bool"), arith.const(1, "bool"))
        return IntervalSet.everything()

    def _binary(self, e: Any, combine: Any) -> IntervalSet:
        a, b = self(e.a), self(e.b)
        if a.is_single_point() and a.min_value is e.a and b.is_single_point() and b.min_value is e.b:
            return IntervalSet.point(e)
        return combine(a, b, e)

    def visit_add(self, e: Add) -> IntervalSet:
        return self._sum(e)

    def _sum(self, e: Add | Sub) -> IntervalSet:
        """:meth:`_binary` folded along the chain of sums on the left, without recursing down it
        (a sum of thousands of terms is that deep)."""
        spine: list[Add | Sub] = []
        x: Expr = e
        while isinstance(x, (Add, Sub)):
            spine.append(x)
            x = x.a
        acc = self(x)
        for node in reversed(spine):
            b = self(node.b)
            if acc.is_single_point() and acc.min_value is node.a and b.is_single_point() and b.min_value is node.b:
                acc = IntervalSet.point(node)
            else:
                acc = (self._add if isinstance(node, Add) else self._sub)(acc, b, node)
        return acc

    def _add(self, a: IntervalSet, b: IntervalSet, e: Expr) -> IntervalSet:
        if a.is_single_point() and b.is_single_point():
            return IntervalSet.point(arith.add(a.min_value, b.min_value))
        if a.is_empty() or b.is_empty():
            return IntervalSet.empty()
        lo = arith.add(a.min_value, b.min_value) if a.has_lower_bound() and b.has_lower_bound() else NEG_INF
        hi = arith.add(a.max_value, b.max_value) if a.has_upper_bound() and b.has_upper_bound() else POS_INF
        return IntervalSet(lo, hi)

    def visit_sub(self, e: Sub) -> IntervalSet:
        return self._sum(e)

    def _sub(self, a: IntervalSet, b: IntervalSet, e: Expr) -> IntervalSet:
        if a.is_single_point() and b.is_single_point():
            return IntervalSet.point(arith.sub(a.min_value, b.min_value))
        if a.is_empty() or b.is_empty():
            return IntervalSet.empty()
        lo = arith.sub(a.min_value, b.max_value) if a.has_lower_bound() and b.has_upper_bound() else NEG_INF
        hi = arith.sub(a.max_value, b.min_value) if a.has_upper_bound() and b.has_lower_bound() else POS_INF
        return IntervalSet(lo, hi)

    def visit_mul(self, e: Mul) -> IntervalSet:
        return self._binary(e, self._mul)

    def _scale(self, a: IntervalSet, c: Expr, op: Any) -> IntervalSet:
        """*a* combined with the point *c* by a monotone *op* (multiplication, floor division)."""
        if self._ana.can_prove(arith.ge(c, 0)):
            lo = op(a.min_value, c) if a.has_lower_bound() else NEG_INF
            hi = op(a.max_value, c) if a.has_upper_bound() else POS_INF
            return IntervalSet(lo, hi)
        if self._ana.can_prove(arith.le(c, -1)):
            lo = op(a.max_value, c) if a.has_upper_bound() else NEG_INF
            hi = op(a.min_value, c) if a.has_lower_bound() else POS_INF
            return IntervalSet(lo, hi)
        if a.has_lower_bound() and a.has_upper_bound():
            sign = arith.ge(c, 0)
            e1, e2 = op(a.min_value, c), op(a.max_value, c)
            return IntervalSet(arith.select(sign, e1, e2), arith.select(sign, e2, e1))
        return IntervalSet.everything()

    def _mul(self, a: IntervalSet, b: IntervalSet, e: Expr) -> IntervalSet:
        if a.is_single_point() and b.is_single_point():
            return IntervalSet.point(arith.mul(a.min_value, b.min_value))
        if a.is_single_point():
            a, b = b, a
        if b.is_single_point():
            c = b.min_value
            if arith.value_of(c) == 0:
                return b
            if arith.value_of(c) == 1:
                return a
            return self._scale(a, c, arith.mul)
        return IntervalSet.everything()

    def visit_floor_div(self, e: FloorDiv) -> IntervalSet:
        return self._binary(e, lambda a, b, _: self._div(a, b, arith.floordiv))

    def visit_div(self, e: Div) -> IntervalSet:
        return self._binary(e, lambda a, b, _: self._div(a, b, arith.div))

    def _div(self, a: IntervalSet, b: IntervalSet, op: Any) -> IntervalSet:
        if a.is_single_point() and b.is_single_point():
            return IntervalSet.point(op(a.min_value, b.min_value))
        if a.is_empty():
            return a
        if b.is_single_point():
            if arith.value_of(b.min_value) == 1:
                return a
            return self._scale(a, b.min_value, op)
        return IntervalSet.everything()

    def visit_floor_mod(self, e: FloorMod) -> IntervalSet:
        return self._binary(e, self._floormod)

    def _floormod(self, a: IntervalSet, b: IntervalSet, e: Expr) -> IntervalSet:
        if a.is_single_point() and b.is_single_point():
            return IntervalSet.point(arith.floormod(a.min_value, b.min_value))
        if a.is_empty() or b.is_empty():
            return IntervalSet.empty()
        if b.is_single_point():
            d = b.min_value
            if self._ana.can_prove(arith.ge(d, 0)):
                if self._rules.floormod_same_quotient and isinstance(d, IntImm) \
                        and a.has_lower_bound() and a.has_upper_bound():
                    qmin, qmax = arith.floordiv(a.min_value, d), arith.floordiv(a.max_value, d)
                    if self._ana.can_prove(arith.equal(qmax, qmin)):
                        return IntervalSet(arith.sub(a.min_value, arith.mul(d, qmin)),
                                           arith.sub(a.max_value, arith.mul(d, qmin)))
                return IntervalSet(arith.const(0, d.dtype), arith.sub(d, 1))
            bound = arith.sub(_abs(d), 1)
            return IntervalSet(arith.neg(bound), bound)
        return IntervalSet.everything()

    def visit_mod(self, e: Mod) -> IntervalSet:
        return self._binary(e, self._truncmod)

    def _truncmod(self, a: IntervalSet, b: IntervalSet, e: Expr) -> IntervalSet:
        if a.is_single_point() and b.is_single_point():
            return IntervalSet.point(arith.truncmod(a.min_value, b.min_value))
        if b.is_single_point():
            d = b.min_value
            # TVM assumes a non-negative dividend here; the sound rules check it.
            nonneg = not self._rules.sound or (a.has_lower_bound() and self._ana.can_prove(arith.ge(a.min_value, 0)))
            if self._ana.can_prove(arith.ge(d, 0)) and nonneg:
                return IntervalSet(arith.const(0, d.dtype), arith.sub(d, 1))
            bound = arith.sub(_abs(d), 1)
            return IntervalSet(arith.neg(bound), bound)
        return IntervalSet.everything()

    def visit_min(self, e: Min) -> IntervalSet:
        return self._binary(e, lambda a, b, _: self._minmax(a, b, _min_end, arith.min_expr))

    def visit_max(self, e: Max) -> IntervalSet:
        return self._binary(e, lambda a, b, _: self._minmax(a, b, _max_end, arith.max_expr))

    @staticmethod
    def _minmax(a: IntervalSet, b: IntervalSet, end: Any, op: Any) -> IntervalSet:
        if a.is_single_point() and b.is_single_point():
            return IntervalSet.point(op(a.min_value, b.min_value))
        if a.is_empty():
            return a
        if b.is_empty():
            return b
        return IntervalSet(end(a.min_value, b.min_value), end(a.max_value, b.max_value))

    def visit_select(self, e: Select) -> IntervalSet:
        return union([self(e.true_value), self(e.false_value)])

    def visit_call(self, e: Call) -> IntervalSet:
        if self._rules.sound and e.name == "tvm_if_then_else":
            return union([self(e.args[1]), self(e.args[2])])
        return IntervalSet.everything()

    def visit_cast(self, e: Cast) -> IntervalSet:
        s = self(e.value)
        if s.is_single_point() and s.min_value is e.value:
            return IntervalSet.point(e)
        lo = arith.cast(e.dtype, s.min_value) if _finite(s.min_value) else s.min_value
        hi = arith.cast(e.dtype, s.max_value) if _finite(s.max_value) else s.max_value
        return IntervalSet.interval(lo, hi)

    def visit_not(self, e: Not) -> IntervalSet:
        s = self(e.a)
        if s.is_single_point():
            return IntervalSet.point(e if s.min_value is e.a else arith.logical_not(s.min_value))
        return IntervalSet(arith.const(0, "bool"), arith.const(1, "bool"))

    def visit_producer_load(self, e: ProducerLoad) -> IntervalSet:
        return IntervalSet.everything()


def _abs(d: Expr) -> Expr:
    v = arith.value_of(d)
    if v is not None:
        return arith.const(abs(v), d.dtype)
    return arith.select(arith.ge(d, 0), d, arith.neg(d))


def eval_set(e: Expr, dom_map: Mapping[Var, IntervalSet], analyzer: Analyzer | None = None,
             rules: Rules = FAITHFUL) -> IntervalSet:
    """The interval *e* takes when each variable of *dom_map* ranges over its set.

    Variables outside *dom_map* stay symbolic (points); *analyzer* proves signs and quotients.
    """
    if not is_int(e.dtype) and e.dtype != "bool":
        return IntervalSet.everything()
    return _Evaluator(dom_map, analyzer or Analyzer(), rules)(e)
