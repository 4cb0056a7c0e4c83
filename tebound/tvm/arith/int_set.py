"""TVM's ``tvm.arith.IntSet``: its constructors, giving our interval sets."""

from __future__ import annotations

from typing import Any

from bound.arith.interval import IntervalSet
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
