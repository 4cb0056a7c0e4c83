"""XLA's closed integer intervals: saturating int64 arithmetic and tri-state comparisons.

``INT64_MIN`` and ``INT64_MAX`` stand for "possibly saturated", so ``[42, MAX] * -1`` is
``[MIN, -42]``. Comparisons answer True, False or None (unknown).
"""

from __future__ import annotations

from dataclasses import dataclass

INT64_MIN = -(2 ** 63)
INT64_MAX = 2 ** 63 - 1


def _clamp(x: int) -> int:
    return max(INT64_MIN, min(INT64_MAX, x))


def _scale(x: int, k: int) -> int:
    if k == 0:
        return 0
    if x in (INT64_MIN, INT64_MAX):
        return INT64_MAX if (x > 0) == (k > 0) else INT64_MIN
    return _clamp(x * k)


@dataclass(frozen=True)
class Interval:
    """``[lower, upper]``, both ends included; infeasible when ``lower > upper``."""

    lower: int
    upper: int

    @property
    def is_feasible(self) -> bool:
        return self.lower <= self.upper

    @property
    def is_point(self) -> bool:
        return self.lower == self.upper

    def __str__(self) -> str:
        return f"[{self.lower}, {self.upper}]"

    def __contains__(self, x: int) -> bool:
        return self.lower <= x <= self.upper

    def contains(self, other: Interval) -> bool:
        return self.lower <= other.lower and other.upper <= self.upper

    def intersect(self, other: Interval) -> Interval:
        out = Interval(max(self.lower, other.lower), min(self.upper, other.upper))
        return out if out.is_feasible else Interval(out.lower, out.lower - 1)

    def union(self, other: Interval) -> Interval:
        return Interval(min(self.lower, other.lower), max(self.upper, other.upper))

    def __add__(self, other: Interval) -> Interval:
        lo, hi = self.lower + other.lower, self.upper + other.upper
        if lo < INT64_MIN or INT64_MIN in (self.lower, other.lower):
            if self.lower < 0 or other.lower < 0:
                lo = INT64_MIN
            else:
                lo = hi = INT64_MAX
        if hi > INT64_MAX or INT64_MAX in (self.upper, other.upper):
            if self.upper > 0 or other.upper > 0:
                hi = INT64_MAX
            else:
                lo = hi = INT64_MIN
        return Interval(_clamp(lo), _clamp(hi))

    def scaled(self, k: int) -> Interval:
        a, b = _scale(self.lower, k), _scale(self.upper, k)
        return Interval(a, b) if k >= 0 else Interval(b, a)

    def __mul__(self, other: Interval) -> Interval:
        return self.scaled(other.lower).union(self.scaled(other.upper))

    def floordiv(self, c: int) -> Interval:
        a, b = self.lower // c, self.upper // c
        return Interval(min(a, b), max(a, b))

    # -- tri-state comparisons ----------------------------------------------------------------
    def gt(self, b: Interval) -> bool | None:
        if not self.is_feasible or not b.is_feasible:
            return None
        if self.lower > b.upper:
            return True
        if self.upper <= b.lower:
            return False
        return None

    def lt(self, b: Interval) -> bool | None:
        return b.gt(self)

    def ge(self, b: Interval) -> bool | None:
        return _not(b.gt(self))

    def le(self, b: Interval) -> bool | None:
        return _not(self.gt(b))

    def eq(self, b: Interval) -> bool | None:
        both = self.intersect(b)
        if not both.is_feasible:
            return False
        if both.is_point and self.is_point and b.is_point:
            return True
        return None

    def ne(self, b: Interval) -> bool | None:
        return _not(self.eq(b))


def _not(x: bool | None) -> bool | None:
    return None if x is None else not x
