"""TVM's ``tvm.tir.op``: the operator functions (``call_intrin``, ``floordiv``, ``exp`` ...),
the same objects ``tvm.tir`` gives."""

from schedule import (  # noqa: F401
    abs,  # noqa: A004
    all,  # noqa: A004
    any,  # noqa: A004
    call_extern,
    call_intrin,
    call_packed,
    call_pure_extern,
    const,
    div,
    exp,
    floordiv,
    floormod,
    if_then_else,
    indexdiv,
    indexmod,
    max,
    max_value,
    min,
    min_value,
    power,
    sigmoid,
    sqrt,
    tanh,
    truncdiv,
    truncmod,
)
from schedule import log as _log
from schedule.ir.arith import bit_op as _bit_op
from schedule.ir.arith import bitwise_not as _bitwise_not
from schedule.ir.arith import convert as _convert
from schedule.ir.buffer import trace  # noqa: F401
from schedule.ir.dtype import is_float as _is_float
from schedule.ir.expr import Call as _Call
from schedule.ir.expr import Expr as _Expr
from schedule.ir.intrinsics import (  # noqa: F401
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    ceil,
    clz,
    copysign,
    cos,
    cosh,
    erf,
    exp2,
    exp10,
    floor,
    hypot,
    isfinite,
    isinf,
    isnan,
    ldexp,
    likely,
    log1p,
    log2,
    log10,
    nearbyint,
    nextafter,
    popcount,
    reinterpret,
    round,  # noqa: A004
    rsqrt,
    sin,
    sinh,
    tan,
    trunc,
)


def log(x: object) -> _Call:
    """TVM's ``tir.log``: of an integer too, as TVM builds it (for analysis; a compute refuses
    it, as TVM's code generators do: cast to a float type to compute it)."""
    e = _convert(x)
    return _log(e) if _is_float(e.dtype) else _Call(e.dtype, "log", (e,))


def bitwise_and(x: object, y: object, span: object = None) -> _Expr:
    """``x & y`` on integers."""
    return _bit_op("bitwise_and", x, y)


def bitwise_or(x: object, y: object, span: object = None) -> _Expr:
    """``x | y`` on integers."""
    return _bit_op("bitwise_or", x, y)


def bitwise_xor(x: object, y: object, span: object = None) -> _Expr:
    """``x ^ y`` on integers."""
    return _bit_op("bitwise_xor", x, y)


def bitwise_not(x: object, span: object = None) -> _Expr:
    """``~x`` on an integer."""
    return _bitwise_not(x)


def shift_left(x: object, y: object, span: object = None) -> _Expr:
    """``x << y`` on integers."""
    return _bit_op("shift_left", x, y)


def shift_right(x: object, y: object, span: object = None) -> _Expr:
    """``x >> y`` on integers (arithmetic for signed types)."""
    return _bit_op("shift_right", x, y)

