"""TVM's constant integer bounds (``Analyzer.const_int_bound``), rule for rule: ends past int64
saturate to ``NEG_INF``/``POS_INF`` (an int64 variable is unbounded), a cast clips the value's
bound to the new type's range (TVM's choice: it does not model wraparound), a size variable is
never negative, and a condition of an enclosing constraint scope (``expr < c`` ...) bounds that
very expression. Our own analyzer's ``const_bound`` is the sound one; this one answers as TVM."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from schedule.ir import arith
from schedule.ir.dtype import int_range, is_int
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
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
    Select,
    SizeVar,
    Sub,
    Var,
)
from schedule.ir.functor import ExprFunctor, structural_equal

POS_INF = (1 << 63) - 1
NEG_INF = -POS_INF
Bound = tuple[int, int]


def everything(dtype: str) -> Bound:
    """The bound of any value of *dtype*: its range, saturated to the infinities."""
    if not is_int(dtype):
        return NEG_INF, POS_INF
    lo, hi = int_range(dtype)
    return max(lo, NEG_INF), min(hi, POS_INF)


def _ceil_log2_arg(e: Cast) -> Expr | None:
    """*x* of an integer ``ceil(log2(x))``."""
    ceil = e.value
    if is_int(e.dtype) and isinstance(ceil, Call) and ceil.name == "ceil" and ceil.args:
        log = ceil.args[0]
        if isinstance(log, Call) and log.name == "log2" and log.args:
            return log.args[0]
    return None


def _sat(v: int) -> int:
    return POS_INF if v >= POS_INF else NEG_INF if v <= NEG_INF else v


def _add(x: int, y: int, low: bool = False) -> int:
    """``x + y`` for an end of a bound (a lower one when *low*): opposite infinities widen it."""
    if {x, y} == {POS_INF, NEG_INF}:
        return NEG_INF if low else POS_INF
    for inf in (POS_INF, NEG_INF):
        if x == inf or y == inf:
            return inf
    return _sat(x + y)


def _mul(x: int, y: int) -> int:
    if x == 0 or y == 0:
        return 0
    if abs(x) == POS_INF or abs(y) == POS_INF:
        return POS_INF if (x > 0) == (y > 0) else NEG_INF
    return _sat(x * y)


def _trunc_div(x: int, y: int) -> int:
    if abs(x) == POS_INF:
        return x if y > 0 else -x
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def _floor_div(x: int, y: int) -> int:
    if abs(x) == POS_INF:
        return x if y > 0 else -x
    return x // y


def _corners(a: Bound, b: Bound, op: Callable[[int, int], int]) -> Bound:
    values = [op(x, y) for x in a for y in b]
    return min(values), max(values)


def _division(a: Bound, b: Bound, dtype: str, op: Callable[[int, int], int]) -> Bound:
    if b[0] <= 0 <= b[1]:  # a divisor that may be zero: the signs on either side of it
        parts = [(b[0], -1)] if b[0] < 0 else []
        parts += [(1, b[1])] if b[1] > 0 else []
        if not parts:
            return everything(dtype)
        found = [_corners(a, p, op) for p in parts]
        return min(f[0] for f in found), max(f[1] for f in found)
    return _corners(a, b, op)


def _intersect(a: Bound, b: Bound) -> Bound:
    return max(a[0], b[0]), min(a[1], b[1])


def bound_info(facts: Sequence[Expr]) -> list[tuple[Expr, Bound]]:
    """What each fact ``e OP c`` (or ``c OP e``) says of e."""
    out = []
    for f in facts:
        if not isinstance(f, (LT, LE, GT, GE, EQ)):
            continue
        e, c, kind = f.a, f.b, type(f)
        if isinstance(e, IntImm) and not isinstance(c, IntImm):
            e, c, kind = c, e, {LT: GT, LE: GE, GT: LT, GE: LE, EQ: EQ}[kind]
        if not isinstance(c, IntImm):
            continue
        v = c.value
        out.append((e, {LT: (NEG_INF, v - 1), LE: (NEG_INF, v), GT: (v + 1, POS_INF), GE: (v, POS_INF),
                        EQ: (v, v)}[kind]))
    return out


class ConstIntBoundEval(ExprFunctor[Bound]):
    """TVM's evaluator; *var_bound* gives a bound variable's bound (None when unbound). A deep
    expression is visited bottom up (the functor's mechanism): a bound depends on its node only."""

    def __init__(self, var_bound: Callable[[Var], Bound | None], info: list[tuple[Expr, Bound]]) -> None:
        self._var_bound = var_bound
        self._info = info

    def __call__(self, e: Expr) -> Bound:
        res = super().__call__(e)
        if self._info:
            h = hash(e)  # structural and cached: most nodes are told apart without a walk
            for expr, b in self._info:
                if hash(expr) == h and structural_equal(e, expr):
                    res = _intersect(res, b)
        return res

    def visit_default(self, e: Expr) -> Bound:
        if isinstance(e, CmpOp):
            return 0, 1
        return everything(e.dtype)

    def visit_int_imm(self, e: IntImm) -> Bound:
        return e.value, e.value

    def visit_let(self, e: Expr) -> Bound:
        """The body's bound with the let variable bounded by its value's (as TVM's)."""
        var, value = e.var, self(e.value)  # type: ignore[attr-defined]
        outer = self._var_bound
        inner = ConstIntBoundEval(lambda v: value if v is var else outer(v), self._info)
        return inner(e.body)  # type: ignore[attr-defined]

    def visit_broadcast(self, e: Expr) -> Bound:
        return self(e.value)  # type: ignore[attr-defined]

    def visit_ramp(self, e: Expr) -> Bound:
        """The union of the first and the last lane's bounds (a ramp is linear in its lane)."""
        first = self(e.base)  # type: ignore[attr-defined]
        last = self(arith.add(e.base, arith.mul(e.lanes - 1, e.stride)))  # type: ignore[attr-defined]
        return min(first[0], last[0]), max(first[1], last[1])

    def visit_var(self, e: Var) -> Bound:
        found = self._var_bound(e)
        if found is not None:
            return found
        return (0, POS_INF) if isinstance(e, SizeVar) else everything(e.dtype)

    def visit_cast(self, e: Cast) -> Bound:
        log_arg = _ceil_log2_arg(e)
        if log_arg is not None:  # int(ceil(log2(x))), topi.math.ceil_log2, as TVM bounds it
            lo, hi = (log_arg.value, log_arg.value) if isinstance(log_arg, FloatImm) else self(log_arg)
            if 0 < lo and hi < POS_INF:
                return _intersect((math.ceil(math.log2(lo)), math.ceil(math.log2(hi))), everything(e.dtype))
        return _intersect(self(e.value), everything(e.dtype))

    def visit_add(self, e: Add) -> Bound:
        (alo, ahi), (blo, bhi) = self(e.a), self(e.b)
        return _add(alo, blo, low=True), _add(ahi, bhi)

    def visit_sub(self, e: Sub) -> Bound:
        (alo, ahi), (blo, bhi) = self(e.a), self(e.b)
        return _add(alo, -bhi, low=True), _add(ahi, -blo)

    def visit_mul(self, e: Mul) -> Bound:
        return _corners(self(e.a), self(e.b), _mul)

    def visit_div(self, e: Div) -> Bound:
        return _division(self(e.a), self(e.b), e.dtype, _trunc_div)

    def visit_floor_div(self, e: FloorDiv) -> Bound:
        return _division(self(e.a), self(e.b), e.dtype, _floor_div)

    def visit_mod(self, e: Mod) -> Bound:
        a, b = self(e.a), self(e.b)
        if b[0] <= 0:
            return everything(e.dtype)
        cap = _add(b[1], -1)
        if a[0] >= 0:
            return a if a[1] < b[0] else (0, min(a[1], cap))
        return max(a[0], -cap), min(max(a[1], 0), cap)

    def visit_floor_mod(self, e: FloorMod) -> Bound:
        a, b = self(e.a), self(e.b)
        if b[0] > 0:
            cap = _add(b[1], -1)
            if a[0] >= 0:
                return a if a[1] < b[0] else (0, min(a[1], cap))
            return 0, cap
        # A divisor of either sign: the result lies between min(0, b + 1) and max(0, b - 1).
        return _intersect((min(0, _add(b[0], 1)), max(0, _add(b[1], -1))), everything(e.dtype))

    def visit_min(self, e: Min) -> Bound:
        (alo, ahi), (blo, bhi) = self(e.a), self(e.b)
        return min(alo, blo), min(ahi, bhi)

    def visit_max(self, e: Max) -> Bound:
        (alo, ahi), (blo, bhi) = self(e.a), self(e.b)
        return max(alo, blo), max(ahi, bhi)

    def visit_select(self, e: Select) -> Bound:
        (alo, ahi), (blo, bhi) = self(e.true_value), self(e.false_value)
        return min(alo, blo), max(ahi, bhi)

    def visit_call(self, e: Call) -> Bound:
        if e.name in ("shift_left", "shift_right", "bitwise_and") and len(e.args) == 2:
            a, b = self(e.args[0]), self(e.args[1])
            if e.name == "shift_right":
                return _corners(a, b, lambda x, y: x if abs(x) == POS_INF else x >> min(max(y, 0), 63))
            if e.name == "shift_left":
                if a[0] < 0 or b[0] < 0:
                    return everything(e.dtype)
                return _corners(a, b, lambda x, y: x if x in (0, POS_INF) else _sat(x << min(y, 64)))
            if a[0] >= 0 and b[0] >= 0:
                return 0, min(a[1], b[1])
            if b[0] >= 0:
                return 0, b[1]
            if a[0] >= 0:
                return 0, a[1]
        return everything(e.dtype)
