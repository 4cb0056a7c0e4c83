"""The sums TVM's canonical simplifier works on: a :class:`SumExpr` is a constant plus scaled
:class:`SplitExpr` terms, each ``((index % upper) // lower) * scale`` in truncated or floored
division, kept in TVM's order so that the text they normalize to is TVM's."""

from __future__ import annotations

from typing import Any

from schedule.ir import arith
from schedule.ir.dtype import bits, int_range
from schedule.ir.expr import Add, Div, Expr, FloorDiv, FloorMod, Mod, Mul, Sub
from schedule.ir.functor import structural_equal
from tebound.tvm.arith.const_fold import is_index_type, make_const, trunc_div
from tebound.tvm.arith.const_int_bound import POS_INF
from tebound.tvm.arith.pattern import build

TRUNC, FLOOR = 0, 1


def mod_impl(a: Expr, b: Expr, mode: int) -> Expr:
    return build(Mod if mode == TRUNC else FloorMod, a, b)


def div_impl(a: Expr, b: Expr, mode: int) -> Expr:
    return build(Div if mode == TRUNC else FloorDiv, a, b)


def cast_is_safe(dtype: str, value: Expr, analyzer: Any) -> bool:
    """Whether casting *value* to *dtype* keeps its value (TVM's ``CastIsSafe``)."""
    if not is_index_type(dtype):
        return False
    b = analyzer.const_int_bound(value)
    lo, hi = int_range(dtype)
    return bits(value.dtype) <= bits(dtype) or (b.max_value <= hi and b.min_value >= lo)


class SplitExpr:
    """``((index % upper_factor) // lower_factor) * scale``."""

    __slots__ = ("index", "lower_factor", "upper_factor", "scale", "div_mode", "dtype")

    def __init__(self, index: Expr, dtype: str, lower: int = 1, upper: int = POS_INF, scale: int = 1,
                 div_mode: int = TRUNC) -> None:
        self.index, self.dtype = index, dtype
        self.lower_factor, self.upper_factor, self.scale, self.div_mode = lower, upper, scale, div_mode

    def copy(self) -> SplitExpr:
        return SplitExpr(self.index, self.dtype, self.lower_factor, self.upper_factor, self.scale, self.div_mode)

    def normalize_with_scale(self, sscale: int) -> Expr:
        res, dtype = self.index, self.dtype
        if self.scale == 0:
            return make_const(dtype, 0)
        if self.upper_factor != POS_INF:
            res = mod_impl(res, make_const(dtype, self.upper_factor), self.div_mode)
        if self.lower_factor != 1:
            res = div_impl(res, make_const(dtype, self.lower_factor), self.div_mode)
        sscale *= self.scale
        if sscale != 1:
            res = build(Mul, res, make_const(dtype, sscale))
        return res

    def normalize(self) -> Expr:
        return self.normalize_with_scale(1)

    def index_equal(self, other: SplitExpr) -> bool:
        return self.index is other.index or structural_equal(self.index, other.index)

    def div_mode_compatible(self, mode: int) -> bool:
        return self.div_mode == mode or (self.lower_factor == 1 and self.upper_factor == POS_INF)

    def can_push_cast(self, dtype: str, analyzer: Any) -> bool:
        if bits(dtype) >= bits(self.dtype) or self.scale == 0:
            return True
        res = self.index
        if not cast_is_safe(dtype, res, analyzer):
            return False
        steps = []
        if self.upper_factor != POS_INF:
            steps.append(lambda r: mod_impl(r, make_const(self.dtype, self.upper_factor), self.div_mode))
        if self.lower_factor != 1:
            steps.append(lambda r: div_impl(r, make_const(self.dtype, self.lower_factor), self.div_mode))
        if self.scale != 1:
            steps.append(lambda r: build(Mul, r, make_const(self.dtype, self.scale)))
        for step in steps:
            res = step(res)
            if not cast_is_safe(dtype, res, analyzer):
                return False
        return True

    def push_cast(self, dtype: str) -> None:
        self.index = arith.cast(dtype, self.index)
        self.dtype = dtype


def _is_min_value(dtype: str, base: int) -> bool:
    return base == -(1 << (bits(dtype) - 1))


class SumExpr:
    """``base + sum(args)``; within a run of terms of one index, larger lower factors first."""

    __slots__ = ("args", "base", "dtype")

    def __init__(self, dtype: str, args: list[SplitExpr] | None = None, base: int = 0) -> None:
        self.dtype, self.args, self.base = dtype, list(args or []), base

    def copy(self) -> SumExpr:
        return SumExpr(self.dtype, self.args, self.base)

    def is_zero(self) -> bool:
        return self.base == 0 and not self.args

    def normalize(self) -> Expr:
        if not self.args:
            return make_const(self.dtype, self.base)
        return _normalize_terms(self.dtype, _merge_terms(self.args), self.base)

    def divisible_by(self, scale: int) -> bool:
        return self.base % scale == 0 and all(a.scale % scale == 0 for a in self.args)

    def mul_to_self(self, scale: int) -> None:
        self.base *= scale
        self.args = [_scaled(a, a.scale * scale) for a in self.args]

    def divide_by(self, scale: int) -> None:
        self.base = trunc_div(self.base, scale)
        self.args = [_scaled(a, trunc_div(a.scale, scale)) for a in self.args]

    def add_split(self, other: SplitExpr, scale: int) -> None:
        """``self += other * scale``, merged into a term of the same split if there is one."""
        if other.scale == 0:
            return
        args = self.args
        start = next((i for i, a in enumerate(args) if a.index_equal(other)), len(args))
        for j in range(start, len(args)):
            if not args[j].index_equal(other) or other.lower_factor > args[j].lower_factor:
                args.insert(j, _scaled(other, other.scale * scale))
                return
            if (other.lower_factor == args[j].lower_factor and other.upper_factor == args[j].upper_factor
                    and other.div_mode_compatible(args[j].div_mode)):
                args[j] = _scaled(args[j], args[j].scale + other.scale * scale)
                return
        args.append(_scaled(other, other.scale * scale))

    def add_sum(self, other: SumExpr, scale: int) -> None:
        for a in other.args:
            self.add_split(a, scale)
        self.base += other.base * scale

    def can_push_cast(self, dtype: str, analyzer: Any) -> bool:
        if bits(dtype) >= bits(self.dtype):
            return True
        is_min = _is_min_value(dtype, self.base)
        res: Expr = make_const(dtype, 0)
        for a in self.args:
            if a.scale > 0:
                res = arith.add(res, a.normalize())
                if not cast_is_safe(dtype, res, analyzer):
                    return False
        if self.base > 0 or is_min:
            res = arith.add(res, make_const(dtype, self.base))
            if not cast_is_safe(dtype, res, analyzer):
                return False
        for a in self.args:
            if a.scale < 0:
                res = arith.sub(res, a.normalize_with_scale(-1))
                if not cast_is_safe(dtype, res, analyzer):
                    return False
        if self.base < 0 and not is_min:
            res = arith.sub(res, make_const(dtype, -self.base))
            if not cast_is_safe(dtype, res, analyzer):
                return False
        return all(a.can_push_cast(dtype, analyzer) for a in self.args)

    def push_cast(self, dtype: str) -> None:
        args = []
        for a in self.args:
            a = a.copy()
            a.push_cast(dtype)
            args.append(a)
        self.args, self.dtype = args, dtype


def _scaled(a: SplitExpr, scale: int) -> SplitExpr:
    out = a.copy()
    out.scale = scale
    return out



def _merge_terms(args: list[SplitExpr]) -> list[SplitExpr]:
    """Terms of one split merged (``x//4*4 + x%4`` style), then sorted as TVM sorts them."""
    args = [a.copy() for a in args]
    for i in range(len(args)):
        if args[i].scale == 0:
            continue
        for j in range(i + 1, len(args)):
            lhs, rhs = args[i], args[j]
            if not lhs.index_equal(rhs) or lhs.upper_factor < rhs.lower_factor:
                break
            if (lhs.upper_factor == rhs.upper_factor and lhs.lower_factor == rhs.lower_factor
                    and lhs.div_mode_compatible(rhs.div_mode)):
                rhs.scale += lhs.scale
                lhs.scale = 0
            elif (lhs.lower_factor == rhs.upper_factor and rhs.scale != 0 and lhs.scale % rhs.scale == 0
                  and lhs.lower_factor == trunc_div(lhs.scale, rhs.scale) * rhs.lower_factor
                  and lhs.div_mode_compatible(rhs.div_mode)):
                rhs.upper_factor = lhs.upper_factor
                lhs.scale = 0
                break
    key = lambda a: (a.scale, a.lower_factor, a.upper_factor, a.div_mode)  # noqa: E731
    return sorted(args, key=key, reverse=True)  # sorted() is stable, as TVM's std::stable_sort


def _normalize_terms(dtype: str, args: list[SplitExpr], base: int) -> Expr:
    is_min = _is_min_value(dtype, base)
    res: Expr = make_const(dtype, 0)
    for a in args:
        if a.scale > 0:
            res = build(Add, res, a.normalize())
    if base > 0 or is_min:
        res = build(Add, res, make_const(dtype, base))
    for a in args:
        if a.scale < 0:
            res = build(Sub, res, a.normalize_with_scale(-1))
    if base < 0 and not is_min:
        res = build(Sub, res, make_const(dtype, -base))
    return res


def normalize(e: Any) -> Any:
    """A sum or split as the expression it stands for; anything else as it is."""
    return e.normalize() if isinstance(e, (SumExpr, SplitExpr)) else e
