"""Building expressions: conversion of Python values, dtype matching and constant folding.

This mirrors TVM's ``tir/op``: a Python int becomes an ``int32`` constant (``int64`` when it does
not fit) and a Python float a ``float32`` constant; both operands of a binary operation are then
cast to their common type (:func:`schedule.ir.dtype.binary_result`), so ``A[i] + 2`` on a float32
tensor adds the constant ``2.000000f``. Constants fold, and the identities TVM's ``TryConstFold``
knows (``x + 0``, ``x * 1``, ``x * 0``, ``0 / x`` ...) simplify on the spot.
"""

from __future__ import annotations

import math
import numbers
import operator
import sys
from collections.abc import Callable
from typing import Any

from schedule.base.errors import ScheduleTypeError
from schedule.ir import expr as _expr
from schedule.ir.dtype import binary_result, check_dtype, element, int_range, is_bool, is_float, is_index, lanes
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
    Call,
    Cast,
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
    Sub,
)
from schedule.ir.expr_like import ExprLike


def is_expr_like(value: object) -> bool:
    """Whether :func:`convert` accepts *value*."""
    return isinstance(value, (Expr, ExprLike)) or (
        isinstance(value, numbers.Real) and not isinstance(value, complex))


def convert(value: Any) -> Expr:
    """*value* as an expression: Expr as is, an IterVar as its var, Python scalars as constants.

    :raises TypeError: for anything else.
    """
    if isinstance(value, Expr):
        return value
    if isinstance(value, ExprLike):
        return value.as_expr()
    if isinstance(value, (bool, numbers.Real)) and not isinstance(value, complex):
        return const(value)
    raise ScheduleTypeError(f"cannot use a {type(value).__name__} ({value!r}) as an expression")


_SMALL_INTS: dict[tuple[int, str | None], IntImm] = {}  # constants are immutable: share the common ones


def const(value: Any, dtype: str | None = None) -> Expr:
    """A constant of *dtype*; without one, bool, int32 (int64 if too large) or float32."""
    if type(value) is int and -4096 <= value <= 4096:
        hit = _SMALL_INTS.get((value, dtype))
        if hit is not None:
            return hit
        made = _const(value, dtype)
        if isinstance(made, IntImm):
            _SMALL_INTS[(value, dtype)] = made
        return made
    return _const(value, dtype)


def _const(value: Any, dtype: str | None) -> Expr:
    if isinstance(value, (IntImm, FloatImm)):
        value = value.value
    if dtype is None:
        if isinstance(value, bool):
            dtype = "bool"
        elif isinstance(value, numbers.Integral):
            lo, hi = int_range("int32")
            dtype = "int32" if lo <= int(value) <= hi else "int64"
        elif isinstance(value, numbers.Real):
            dtype = "float32"
        else:
            raise ScheduleTypeError(f"const: cannot make a constant of a {type(value).__name__}")
    dtype = check_dtype(dtype)
    if lanes(dtype) != 1:  # a vector constant is its scalar broadcast, as TVM makes it
        return Broadcast(_const(value, element(dtype)), lanes(dtype))
    if is_float(dtype):
        return FloatImm(dtype, float(value))
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        if not float(value).is_integer():
            raise ValueError(f"const: {value} is not an integer, so it cannot be {dtype}")
    if is_bool(dtype):
        return IntImm("bool", int(bool(value)))
    return IntImm(dtype, int(value))


def value_of(e: Expr) -> int | float | None:
    """The Python value of a constant expression, else None."""
    if isinstance(e, (IntImm, FloatImm)):
        return e.value
    return None


def cast(dtype: str, x: Any) -> Expr:
    """*x* cast to *dtype*; constants convert on the spot."""
    x, dtype = convert(x), check_dtype(dtype)
    if x.dtype == dtype:
        return x
    if lanes(dtype) != 1:
        return _cast_vector(dtype, x)
    v = value_of(x)
    if v is not None:
        if is_float(dtype):
            return FloatImm(dtype, float(v))
        if is_bool(dtype):
            return IntImm("bool", int(v != 0))
        if isinstance(v, float) and not math.isfinite(v):
            return Cast(dtype, x)
        return IntImm(dtype, int(v))
    return Cast(dtype, x)


def _cast_vector(dtype: str, x: Expr) -> Expr:
    """*x* cast to the vector type *dtype*, as TVM's ``cast``: a scalar is cast to the element
    type and broadcast; a broadcast casts its value."""
    n = lanes(dtype)
    if lanes(x.dtype) == 1:
        return _expr.Broadcast(cast(element(dtype), x), n)
    if lanes(x.dtype) != n:
        raise ScheduleTypeError(f"cannot cast {x} ({x.dtype}) to {dtype}: the lanes differ")
    if isinstance(x, _expr.Broadcast):
        return _expr.Broadcast(cast(element(dtype), x.value), n)
    return Cast(dtype, x)


def match_types(a: Any, b: Any) -> tuple[Expr, Expr]:
    """Convert *a* and *b* and cast both to their common dtype (a scalar beside a vector is
    broadcast first, as TVM's ``BinaryOpMatchTypes``)."""
    a, b = convert(a), convert(b)
    if a.dtype != b.dtype and lanes(a.dtype) != lanes(b.dtype):
        if lanes(a.dtype) == 1:
            a = _expr.Broadcast(a, lanes(b.dtype))
        elif lanes(b.dtype) == 1:
            b = _expr.Broadcast(b, lanes(a.dtype))
    if a.dtype != b.dtype:
        t = binary_result(a.dtype, b.dtype)
        a, b = cast(t, a), cast(t, b)
    return a, b


def _make(dtype: str, value: int | float) -> Expr:
    if is_float(dtype):
        return FloatImm(dtype, float(value))
    if is_bool(dtype):
        return IntImm("bool", int(bool(value)))
    return IntImm(dtype, int(value))


def _check_divisor(op: str, b: Expr) -> None:
    if value_of(b) == 0:
        raise ValueError(f"{op}: division by the constant zero")


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def _binary(node: type, fold: Callable[[Any, Any], Any], a: Any, b: Any) -> Expr:
    a, b = match_types(a, b)
    va, vb = value_of(a), value_of(b)
    if va is not None and vb is not None:
        return _make(a.dtype, fold(va, vb))
    return node(a, b)


def add(a: Any, b: Any) -> Expr:
    a, b = match_types(a, b)
    if value_of(a) == 0 and value_of(b) is None:
        return b
    if value_of(b) == 0 and value_of(a) is None:
        return a
    return _binary(Add, operator.add, a, b)


def sub(a: Any, b: Any) -> Expr:
    a, b = match_types(a, b)
    if value_of(b) == 0 and value_of(a) is None:
        return a
    return _binary(Sub, operator.sub, a, b)


def mul(a: Any, b: Any) -> Expr:
    a, b = match_types(a, b)
    va, vb = value_of(a), value_of(b)
    if va is not None and vb is None:
        if va == 1:
            return b
        if va == 0:
            return a
    if vb is not None and va is None:
        if vb == 1:
            return a
        if vb == 0:
            return b
    return _binary(Mul, operator.mul, a, b)


def true_div(a: Any, b: Any) -> Expr:
    """Python's ``/``: floating division; refused on two integers, as in TVM."""
    a, b = match_types(a, b)
    if not is_float(a.dtype):
        raise ScheduleTypeError(f"'/' on integers ({a} / {b}) is ambiguous; use '//' or te.floordiv for "
                                "floor division, te.truncdiv for C division")
    return div(a, b)


def div(a: Any, b: Any) -> Expr:
    """``Div``: truncating on integers, true division on floats."""
    a, b = match_types(a, b)
    _check_divisor("div", b)
    if value_of(b) == 1 or (value_of(a) == 0 and value_of(b) is None):
        return a
    fold = operator.truediv if is_float(a.dtype) else _trunc_div
    return _binary(Div, fold, a, b)


def truncmod(a: Any, b: Any) -> Expr:
    """``Mod``: the remainder of truncating division (sign of *a*)."""
    a, b = match_types(a, b)
    _check_divisor("truncmod", b)
    if value_of(b) == 1:
        return _make(a.dtype, 0)
    if value_of(a) == 0:
        return a
    return _binary(Mod, lambda x, y: x - _trunc_div(x, y) * y, a, b)


def floordiv(a: Any, b: Any) -> Expr:
    """Division rounding towards negative infinity."""
    a, b = match_types(a, b)
    _check_divisor("floordiv", b)
    if (value_of(b) == 1 and not is_float(a.dtype)) or (value_of(a) == 0 and value_of(b) is None):
        return a  # (a float's floordiv by 1 is its floor, not itself)
    fold = (lambda x, y: math.floor(x / y)) if is_float(a.dtype) else operator.floordiv
    return _binary(FloorDiv, fold, a, b)


def floormod(a: Any, b: Any) -> Expr:
    """The remainder of :func:`floordiv` (sign of *b*)."""
    a, b = match_types(a, b)
    _check_divisor("floormod", b)
    if value_of(b) == 1 and not is_float(a.dtype):
        return _make(a.dtype, 0)
    if value_of(a) == 0:
        return a
    return _binary(FloorMod, operator.mod, a, b)


def min_expr(a: Any, b: Any) -> Expr:
    return _binary(Min, min, a, b)


def max_expr(a: Any, b: Any) -> Expr:
    return _binary(Max, max, a, b)


def neg(a: Any) -> Expr:
    a = convert(a)
    return mul(a, _make(a.dtype, -1))


def lt(a: Any, b: Any) -> Expr: return _compare(LT, operator.lt, a, b)
def le(a: Any, b: Any) -> Expr: return _compare(LE, operator.le, a, b)
def gt(a: Any, b: Any) -> Expr: return _compare(GT, operator.gt, a, b)
def ge(a: Any, b: Any) -> Expr: return _compare(GE, operator.ge, a, b)
def equal(a: Any, b: Any) -> Expr: return _compare(EQ, operator.eq, a, b)
def not_equal(a: Any, b: Any) -> Expr: return _compare(NE, operator.ne, a, b)


def eq_node(a: Any, b: Any) -> Expr:
    """``a == b`` as written in Python: always an :class:`EQ` node (its ``bool()`` is equality)."""
    return EQ(*match_types(a, b))


def ne_node(a: Any, b: Any) -> Expr:
    return NE(*match_types(a, b))


def _compare(node: type, fold: Callable[[Any, Any], bool], a: Any, b: Any) -> Expr:
    a, b = match_types(a, b)
    va, vb = value_of(a), value_of(b)
    if va is not None and vb is not None:
        return IntImm("bool", int(fold(va, vb)))
    return node(a, b)


def _as_bool(x: Any, what: str) -> Expr:
    x = convert(x)
    if not is_bool(x.dtype):
        raise ScheduleTypeError(f"{what}: operand {x} is {x.dtype}; logical operations need bool "
                                "expressions (comparisons, te.all, te.any)")
    return x


#: Integer bit operations, by their call name: TVM's intrinsics of ``>>``, ``<<``, ``&``, ``|``, ``^``.
BIT_OPS: dict[str, Any] = {
    "shift_right": lambda x, y: x >> y, "shift_left": lambda x, y: x << y,
    "bitwise_and": lambda x, y: x & y, "bitwise_or": lambda x, y: x | y, "bitwise_xor": lambda x, y: x ^ y,
}


def bit_op(name: str, a: Any, b: Any) -> Expr:
    """``a <op> b`` on integers (*name* a key of :data:`BIT_OPS`); constants fold."""
    a, b = match_types(a, b)
    if is_float(a.dtype) or is_bool(a.dtype):
        raise ScheduleTypeError(f"{name}: operands are {a.dtype}; bit operations need integers")
    x, y = value_of(a), value_of(b)
    if x is not None and y is not None:
        return const(BIT_OPS[name](int(x), int(y)), a.dtype)
    return Call(a.dtype, name, (a, b))


def bitwise_not(a: Any) -> Expr:
    """``~a`` on an integer."""
    a = convert(a)
    if is_float(a.dtype) or is_bool(a.dtype):
        raise ScheduleTypeError(f"bitwise_not: the operand is {a.dtype}; bit operations need integers")
    x = value_of(a)
    return const(~int(x), a.dtype) if x is not None else Call(a.dtype, "bitwise_not", (a,))


def and_op(a: Any, b: Any) -> Expr:
    """``a & b``: logical on conditions, bitwise on integers (as TVM's operator)."""
    return bit_op("bitwise_and", a, b) if _is_int_operand(a) or _is_int_operand(b) else logical_and(a, b)


def or_op(a: Any, b: Any) -> Expr:
    """``a | b``: logical on conditions, bitwise on integers."""
    return bit_op("bitwise_or", a, b) if _is_int_operand(a) or _is_int_operand(b) else logical_or(a, b)


def invert_op(a: Any) -> Expr:
    """``~a``: logical on a condition, bitwise on an integer."""
    return bitwise_not(a) if _is_int_operand(a) else logical_not(a)


def _is_int_operand(x: Any) -> bool:
    """Whether an operand of ``&``, ``|``, ``~`` makes it a bit operation: an integer expression
    (a Python int only beside one, so that a condition and an int stay an error)."""
    return isinstance(x, Expr) and not is_bool(x.dtype) and not is_float(x.dtype)


def logical_and(a: Any, b: Any) -> Expr:
    a, b = _as_bool(a, "and"), _as_bool(b, "and")
    for x, y in ((a, b), (b, a)):
        v = value_of(x)
        if v is not None:
            return y if v else x
    return And(a, b)


def logical_or(a: Any, b: Any) -> Expr:
    a, b = _as_bool(a, "or"), _as_bool(b, "or")
    for x, y in ((a, b), (b, a)):
        v = value_of(x)
        if v is not None:
            return x if v else y
    return Or(a, b)


def logical_not(a: Any) -> Expr:
    a = _as_bool(a, "not")
    v = value_of(a)
    return IntImm("bool", int(not v)) if v is not None else Not(a)


def all(*args: Any) -> Expr:  # noqa: A001 - te.all, as TVM names it
    """The conjunction of one or more bool expressions."""
    if not args:
        raise ValueError("te.all needs at least one condition")
    result = _as_bool(args[0], "te.all")
    for arg in args[1:]:
        result = logical_and(result, arg)
    return result


def any(*args: Any) -> Expr:  # noqa: A001 - te.any, as TVM names it
    """The disjunction of one or more bool expressions."""
    if not args:
        raise ValueError("te.any needs at least one condition")
    result = _as_bool(args[0], "te.any")
    for arg in args[1:]:
        result = logical_or(result, arg)
    return result


def select(condition: Any, true_value: Any, false_value: Any) -> Expr:
    """``condition ? true_value : false_value``, both branches evaluated (TVM's ``Select``)."""
    c = _as_bool(condition, "select")
    t, f = match_types(true_value, false_value)
    return Select(c, t, f)


def if_then_else(condition: Any, true_value: Any, false_value: Any) -> Expr:
    """Like :func:`select`, but only the chosen branch is evaluated (safe around loads)."""
    c = _as_bool(condition, "if_then_else")
    t, f = match_types(true_value, false_value)
    v = value_of(c)
    if v is not None:
        return t if v else f
    return Call(t.dtype, "tvm_if_then_else", (c, t, f))


def min_value(dtype: str) -> Expr:
    """The smallest value of *dtype* (the identity of a max reduction)."""
    dtype = check_dtype(dtype)
    if is_float(dtype):
        return FloatImm(dtype, -_FLOAT_MAX[dtype])
    return IntImm(dtype, int_range(dtype)[0])


def max_value(dtype: str) -> Expr:
    """The largest value of *dtype* (the identity of a min reduction)."""
    dtype = check_dtype(dtype)
    if is_float(dtype):
        return FloatImm(dtype, _FLOAT_MAX[dtype])
    return IntImm(dtype, int_range(dtype)[1])


_FLOAT_MAX = {"float16": 65504.0, "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


def as_index(value: Any, what: str) -> Expr:
    """*value* as an integer expression, for indices and extents.

    :raises TypeError: when it is not an integer (a float, a bool, a string ...).
    """
    if isinstance(value, bool) or not is_expr_like(value):
        raise ScheduleTypeError(f"{what}: {value!r} is not an integer expression")
    e = convert(value)
    if not is_index(e.dtype):
        raise ScheduleTypeError(f"{what}: {e} has dtype {e.dtype}, not an integer type")
    return e


_expr.install("arith", sys.modules[__name__])  # the node classes' operators, hashing and text call here
