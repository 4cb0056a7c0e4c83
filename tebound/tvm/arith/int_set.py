"""TVM's ``tvm.arith.IntSet``: its constructors, giving our interval sets."""

from __future__ import annotations

from typing import Any

from bound.arith.interval import NEG_INF, POS_INF, IntervalSet
from bound.arith.interval import union_lower_bound as _union_lower_bound
from schedule.ir.arith import convert


class IntSet:
    """TVM's base of integer sets; here its static constructors."""

    @staticmethod
    def single_point(point: Any) -> IntervalSet:
        """The set of the one value *point*."""
        return IntervalSet.point(convert(point))

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
