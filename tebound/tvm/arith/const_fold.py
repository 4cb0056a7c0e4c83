"""TVM's ``TryConstFold``: a binary (or ``Not``) node over constants folded, and the identities
with 0 and 1 (``x + 0``, ``x * 1``, ``0 / x``) applied; None when nothing folds. Integer results
wrap to their dtype's width; a zero divisor is refused."""

from __future__ import annotations

import math
import struct
from typing import Any

from schedule.base.errors import ScheduleError
from schedule.ir.dtype import bits, element, is_bool, is_float, is_int, lanes, type_code
from schedule.ir.evaluate import trunc_div, trunc_mod  # C's integer division and remainder
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Broadcast,
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
    Sub,
)


def is_index_type(dtype: str) -> bool:
    """A signed 32- or 64-bit scalar integer (TVM's ``IsIndexType``)."""
    return type_code(dtype) == "int" and lanes(dtype) == 1 and bits(dtype) in (32, 64)


def make_const(dtype: str, value: Any) -> Expr:
    """A constant of *dtype* (a vector type broadcasts it)."""
    if lanes(dtype) != 1:
        return Broadcast(make_const(element(dtype), value), lanes(dtype))
    if is_float(dtype):
        return FloatImm(dtype, float(value))
    if is_bool(dtype):
        return IntImm("bool", int(bool(value)))
    return IntImm(dtype, wrap(int(value), dtype))


def wrap(x: int, dtype: str) -> int:
    """*x* reduced to *dtype*'s width, as TVM's ``GetFoldResultInt64Repr``."""
    if not is_int(dtype):
        return x
    b = min(bits(dtype), 64)
    x &= (1 << b) - 1
    if type_code(dtype) == "int" or b == 64:
        m = 1 << (b - 1)
        x = (x ^ m) - m
    return x


def _float(dtype: str, v: float) -> Expr:
    if bits(dtype) == 32 and math.isfinite(v):
        try:
            v = struct.unpack("f", struct.pack("f", v))[0]
        except OverflowError:
            v = math.copysign(math.inf, v)
    return FloatImm(dtype, v)


def _zero_div(b: Expr) -> None:
    raise ScheduleError(f"division by zero: the divisor {b} is zero")


def _fold_arith(op: type, a: Expr, b: Expr) -> Expr | None:
    pa = a.value if isinstance(a, IntImm) else None
    pb = b.value if isinstance(b, IntImm) else None
    fa = a.value if isinstance(a, FloatImm) else None
    fb = b.value if isinstance(b, FloatImm) else None
    t = a.dtype
    if op is Add:
        if pa is not None and pb is not None:
            return IntImm(t, wrap(pa + pb, t))
        if pa == 0:
            return b
        if pb == 0:
            return a
        if fa is not None and fb is not None:
            return _float(t, fa + fb)
        if fa == 0:
            return b
        if fb == 0:
            return a
    elif op is Sub:
        if pa is not None and pb is not None:
            return IntImm(t, wrap(pa - pb, t))
        if pb == 0:
            return a
        if fa is not None and fb is not None:
            return _float(t, fa - fb)
        if fb == 0:
            return a
    elif op is Mul:
        if pa is not None and pb is not None:
            return IntImm(t, wrap(pa * pb, t))
        if pa is not None and pa in (0, 1):
            return b if pa == 1 else a
        if pb is not None and pb in (0, 1):
            return a if pb == 1 else b
        if fa is not None and fb is not None:
            return _float(t, fa * fb)
        if fa is not None and fa in (0, 1):
            return b if fa == 1 else a
        if fb is not None and fb in (0, 1):
            return a if fb == 1 else b
    elif op in (Div, FloorDiv):
        if pb == 0 or fb == 0:
            _zero_div(b)
        if pa is not None and pb is not None:
            return IntImm(t, wrap(trunc_div(pa, pb) if op is Div else pa // pb, t))
        if pa == 0:
            return a
        if pb == 1:
            return a
        if fa is not None and fb is not None:
            q = fa / fb
            return _float(t, q if op is Div else math.floor(q))
        if fa == 0:
            return a
        if fb == 1:
            return a
    elif op in (Mod, FloorMod):
        if not (is_index_type(a.dtype) and is_index_type(b.dtype)):
            return None
        if pb == 0:
            _zero_div(b)
        if pa is not None and pb is not None:
            return IntImm(t, wrap(trunc_mod(pa, pb) if op is Mod else pa % pb, t))
        if pa == 0:
            return a
        if pb == 1:
            return IntImm(t, 0)
    elif op in (Min, Max):
        pick = min if op is Min else max
        if pa is not None and pb is not None:
            return IntImm(t, pick(pa, pb))
        if fa is not None and fb is not None:
            return FloatImm(t, pick(fa, fb))
        if a is b:
            return a
    return None


_COMPARE = {LT: lambda x, y: x < y, LE: lambda x, y: x <= y, GT: lambda x, y: x > y, GE: lambda x, y: x >= y,
            EQ: lambda x, y: x == y, NE: lambda x, y: x != y}


def try_fold(op: type, a: Expr, b: Expr | None = None) -> Expr | None:
    """The folded form of ``op(a, b)``, or None."""
    if op is Not:
        return IntImm("bool", int(not a.value)) if isinstance(a, IntImm) else None
    assert b is not None
    if op in _COMPARE:
        if isinstance(a, IntImm) and isinstance(b, IntImm) or isinstance(a, FloatImm) and isinstance(b, FloatImm):
            return IntImm("bool", int(_COMPARE[op](a.value, b.value)))
        return None
    if op is And:
        if isinstance(a, IntImm):
            return b if a.value else a
        if isinstance(b, IntImm):
            return a if b.value else b
        return None
    if op is Or:
        if isinstance(a, IntImm):
            return a if a.value else b
        if isinstance(b, IntImm):
            return b if b.value else a
        return None
    return _fold_arith(op, a, b)
