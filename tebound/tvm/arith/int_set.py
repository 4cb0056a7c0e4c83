"""TVM's ``tvm.arith.IntSet``: its constructors, giving our interval sets."""

from __future__ import annotations

from typing import Any

from bound.arith.interval import NEG_INF, POS_INF, IntervalSet
from bound.arith.interval import union_lower_bound as _union_lower_bound
from schedule.ir import arith
from schedule.ir.arith import convert
from schedule.ir.expr import Broadcast, IntImm, Ramp


class IntSet:
    """TVM's base of integer sets; here its static constructors."""

    @staticmethod
    def single_point(point: Any) -> IntervalSet:
        """The set of the one value *point*."""
        return IntervalSet.point(convert(point))

    @staticmethod
    def vector(x: Any) -> IntervalSet:
        """The values the lanes of *x* take: a ramp with a constant stride spans its first and
        last lane, a broadcast is its value, anything else the one point *x*."""
        x = convert(x)
        if isinstance(x, Broadcast):
            return IntervalSet.point(x.value)
        if isinstance(x, Ramp) and isinstance(x.stride, IntImm):
            span = x.stride.value * (x.lanes - 1)
            return IntervalSet(arith.add(x.base, min(span, 0)), arith.add(x.base, max(span, 0)))
        return IntervalSet.point(x)

    @staticmethod
    def interval(min_value: Any, max_value: Any) -> IntervalSet:
        """``[min_value, max_value]``, both included."""
        return IntervalSet(convert(min_value), convert(max_value))


def neg_inf() -> Any:
    """The lower end of an unbounded set (one object, compared with ``same_as``)."""
    return NEG_INF


def pos_inf() -> Any:
    """The upper end of an unbounded set."""
    return POS_INF


def union_lower_bound(sets: Any) -> IntervalSet:
    """A set inside the union of *sets*: each joined when it provably touches the hull so far."""
    return _union_lower_bound(list(sets))
