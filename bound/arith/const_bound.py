"""Constant integer bounds of expressions, given constant bounds of their variables.

A bound is ``(lo, hi)`` with ``None`` for an infinite end. This is the fact base of the
simplifier (TVM's ``ConstIntBound``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from schedule.ir.dtype import int_range, is_bool
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
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
    Or,
    Select,
    SizeVar,
    Sub,
    Var,
)
from schedule.ir.functor import DEEP, distinct_post_order

Bound = tuple[int | None, int | None]
EVERYTHING: Bound = (None, None)


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def _mul_bounds(a: Bound, b: Bound) -> Bound:
    """Interval product; an infinite end times zero is zero."""
    def ends(x: Bound) -> tuple[float, float]:
        return (-math.inf if x[0] is None else x[0], math.inf if x[1] is None else x[1])

    corners = [0 if x == 0 or y == 0 else x * y for x in ends(a) for y in ends(b)]
    lo, hi = min(corners), max(corners)
    return (None if lo == -math.inf else int(lo), None if hi == math.inf else int(hi))


def _floordiv_bounds(a: Bound, c: int) -> Bound:
    lo, hi = a
    if c > 0:
        return (None if lo is None else lo // c, None if hi is None else hi // c)
    return (None if hi is None else hi // c, None if lo is None else lo // c)


def _floormod_bounds(a: Bound, c: int) -> Bound:
    lo, hi = a
    if c > 0:
        if lo is not None and hi is not None and lo // c == hi // c:
            q = lo // c
            return lo - q * c, hi - q * c
        return 0, c - 1
    return c + 1, 0


class ConstBounds:
    """Bottom-up constant bounds; variables without a bound are unbounded (memoized per node)."""

    def __init__(self, var_bounds: Mapping[Var, Bound]) -> None:
        self._vars = var_bounds
        self._memo: dict[int, tuple[Expr, Bound]] = {}

    def __call__(self, e: Expr) -> Bound:
        hit = self._memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        if e._height > DEEP:
            # Children first, so that no bound below recurses more than a level.
            for x in distinct_post_order(e, self._missing):
                self._memo[id(x)] = (x, self._bound(x))
            return self._memo[id(e)][1]
        b = self._bound(e)
        self._memo[id(e)] = (e, b)
        return b

    def _missing(self, e: Expr) -> bool:
        hit = self._memo.get(id(e))
        return hit is None or hit[0] is not e

    def _bound(self, e: Expr) -> Bound:
        if isinstance(e, IntImm):
            return e.value, e.value
        if isinstance(e, FloatImm):
            return EVERYTHING
        if isinstance(e, Var):
            lo, hi = self._vars.get(e, EVERYTHING)
            if isinstance(e, SizeVar):
                lo = 0 if lo is None else max(lo, 0)
            if e.dtype.startswith(("int", "uint")):
                dlo, dhi = int_range(e.dtype)
                lo = dlo if lo is None else max(lo, dlo)
                hi = dhi if hi is None else min(hi, dhi)
            return lo, hi
        if is_bool(e.dtype) and not isinstance(e, (Select, Call)):
            return self._bool_bound(e)
        if isinstance(e, Add):
            (alo, ahi), (blo, bhi) = self(e.a), self(e.b)
            return _add(alo, blo), _add(ahi, bhi)
        if isinstance(e, Sub):
            (alo, ahi), (blo, bhi) = self(e.a), self(e.b)
            return _add(alo, None if bhi is None else -bhi), _add(ahi, None if blo is None else -blo)
        if isinstance(e, Mul):
            return _mul_bounds(self(e.a), self(e.b))
        if isinstance(e, (FloorDiv, Div, FloorMod, Mod)):
            return self._division(e)
        if isinstance(e, Min):
            (alo, ahi), (blo, bhi) = self(e.a), self(e.b)
            return (None if alo is None or blo is None else min(alo, blo),
                    ahi if bhi is None else bhi if ahi is None else min(ahi, bhi))
        if isinstance(e, Max):
            (alo, ahi), (blo, bhi) = self(e.a), self(e.b)
            return (alo if blo is None else blo if alo is None else max(alo, blo),
                    None if ahi is None or bhi is None else max(ahi, bhi))
        if isinstance(e, Select):
            return self._union(self(e.true_value), self(e.false_value))
        if isinstance(e, Call) and e.name == "tvm_if_then_else":
            return self._union(self(e.args[1]), self(e.args[2]))
        if isinstance(e, Cast) and e.dtype.startswith(("int", "uint")):
            lo, hi = int_range(e.dtype)
            if e.value.dtype.startswith(("int", "uint", "bool")):
                ilo, ihi = self(e.value)
                # A value that fits keeps its bounds; anything else may wrap around.
                if ilo is not None and ihi is not None and lo <= ilo and ihi <= hi:
                    return ilo, ihi
            return lo, hi
        return EVERYTHING

    @staticmethod
    def _union(a: Bound, b: Bound) -> Bound:
        lo = None if a[0] is None or b[0] is None else min(a[0], b[0])
        hi = None if a[1] is None or b[1] is None else max(a[1], b[1])
        return lo, hi

    def _division(self, e: Expr) -> Bound:
        a, b = self(e.a), self(e.b)  # type: ignore[attr-defined]
        trunc = isinstance(e, (Div, Mod))
        if trunc and not (a[0] is not None and a[0] >= 0):
            if isinstance(e, Mod) and b[0] is not None and b[0] == b[1] and b[0] != 0:
                m = abs(b[0]) - 1
                return (-m if a[0] is None or a[0] < 0 else 0), m
            return EVERYTHING
        if b[0] is not None and b[0] == b[1] and b[0] != 0:
            c = b[0]
            return _floordiv_bounds(a, c) if isinstance(e, (FloorDiv, Div)) else _floormod_bounds(a, c)
        if isinstance(e, (FloorMod, Mod)) and b[0] is not None and b[0] > 0:
            top = None if b[1] is None else b[1] - 1
            if a[0] is not None and a[0] >= 0:
                top = a[1] if top is None else (top if a[1] is None else min(top, a[1]))
            return 0, top
        if isinstance(e, (FloorDiv, Div)) and b[0] is not None and b[0] > 0 and a[0] is not None \
                and a[0] >= 0:
            return 0, a[1]
        return EVERYTHING

    def _bool_bound(self, e: Expr) -> Bound:
        if isinstance(e, CmpOp):
            d = self(e.a - e.b) if e.a.dtype.startswith(("int", "uint")) else EVERYTHING
            lo, hi = d
            truth = {
                LT: (hi is not None and hi < 0, lo is not None and lo >= 0),
                LE: (hi is not None and hi <= 0, lo is not None and lo > 0),
                GT: (lo is not None and lo > 0, hi is not None and hi <= 0),
                GE: (lo is not None and lo >= 0, hi is not None and hi < 0),
                EQ: (lo == hi == 0, (lo is not None and lo > 0) or (hi is not None and hi < 0)),
                NE: ((lo is not None and lo > 0) or (hi is not None and hi < 0), lo == hi == 0),
            }[type(e)]
            if truth[0]:
                return 1, 1
            if truth[1]:
                return 0, 0
            return 0, 1
        if isinstance(e, And):
            (alo, ahi), (blo, bhi) = self(e.a), self(e.b)
            return min(alo or 0, blo or 0), min(ahi if ahi is not None else 1, bhi if bhi is not None else 1)
        if isinstance(e, Or):
            (alo, ahi), (blo, bhi) = self(e.a), self(e.b)
            return max(alo or 0, blo or 0), max(ahi if ahi is not None else 1, bhi if bhi is not None else 1)
        if isinstance(e, Not):
            lo, hi = self(e.a)
            return 1 - (hi if hi is not None else 1), 1 - (lo if lo is not None else 0)
        return 0, 1
