"""Math calls (``te.exp``, ``te.sqrt`` ...) and ``likely``, as :class:`~schedule.ir.expr.Call` nodes."""

from __future__ import annotations

import builtins
import math
from typing import Any

from schedule.base.errors import ScheduleTypeError
from schedule.ir import arith
from schedule.ir.dtype import bits, check_dtype, is_float
from schedule.ir.expr import Call, Expr, FloatImm

#: Unary float functions, by the name they print with; each has a NumPy counterpart of the same name
#: except where :data:`NUMPY_NAMES` says otherwise.
FLOAT_UNARY = ("exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos",
               "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sigmoid",
               "erf", "floor", "ceil", "round", "nearbyint", "trunc", "fabs")
NUMPY_NAMES = {"fabs": "abs", "round": "rint", "nearbyint": "rint", "asin": "arcsin", "acos": "arccos",
               "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh"}
#: Binary float functions (libm's and NumPy's names but ``atan2``, NumPy's ``arctan2``).
FLOAT_BINARY = ("atan2", "hypot", "copysign", "nextafter")


def _float_call(name: str, x: Any) -> Expr:
    x = arith.convert(x)
    if name in ROUNDINGS and not is_float(x.dtype):
        return x  # an integer is its own rounding, as TVM gives it
    if not is_float(x.dtype):
        raise ScheduleTypeError(f"te.{name}: argument {x} is {x.dtype}; cast it to a float type first "
                                "(x.astype('float32'))")
    folded = ROUNDINGS.get(name)
    v = arith.value_of(x)
    if folded is not None and v is not None and math.isfinite(v):
        return FloatImm(x.dtype, float(folded(v)))  # TVM folds a constant's rounding on the spot
    return Call(x.dtype, name, (x,))


#: The roundings folded on constants; ``round`` is to the nearest even integer on ties, as the
#: C and Python targets compute it (``nearbyint``, ``numpy.rint``).
ROUNDINGS = {"floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "round": builtins.round,
             "nearbyint": builtins.round}


def _make_unary(name: str) -> Any:
    def fn(x: Any) -> Expr:
        return _float_call(name, x)
    fn.__name__ = name
    fn.__doc__ = f"``{name}(x)`` of a float expression."
    return fn


exp, exp2, exp10 = _make_unary("exp"), _make_unary("exp2"), _make_unary("exp10")
log, log2, log10, log1p = _make_unary("log"), _make_unary("log2"), _make_unary("log10"), _make_unary("log1p")
sqrt, rsqrt = _make_unary("sqrt"), _make_unary("rsqrt")
sin, cos, tan = _make_unary("sin"), _make_unary("cos"), _make_unary("tan")
sinh, cosh, tanh = _make_unary("sinh"), _make_unary("cosh"), _make_unary("tanh")
asin, acos, atan = _make_unary("asin"), _make_unary("acos"), _make_unary("atan")
asinh, acosh, atanh = _make_unary("asinh"), _make_unary("acosh"), _make_unary("atanh")
sigmoid, erf = _make_unary("sigmoid"), _make_unary("erf")
floor, ceil, trunc = _make_unary("floor"), _make_unary("ceil"), _make_unary("trunc")
round = _make_unary("round")  # noqa: A001 - te.round
nearbyint = _make_unary("nearbyint")


def _make_binary(name: str) -> Any:
    def fn(x: Any, y: Any) -> Expr:
        x, y = arith.match_types(x, y)
        if not is_float(x.dtype):
            raise ScheduleTypeError(f"te.{name}: arguments are {x.dtype}; cast them to a float type first")
        return Call(x.dtype, name, (x, y))
    fn.__name__ = name
    fn.__doc__ = f"``{name}(x, y)`` of float expressions (libm's)."
    return fn


atan2, hypot = _make_binary("atan2"), _make_binary("hypot")
copysign, nextafter = _make_binary("copysign"), _make_binary("nextafter")


def ldexp(x: Any, exponent: Any) -> Expr:
    """``x * 2**exponent``: a float times a power of two given by an integer."""
    x, exponent = arith.convert(x), arith.convert(exponent)
    if not is_float(x.dtype) or is_float(exponent.dtype) or exponent.dtype == "bool":
        raise ScheduleTypeError(f"te.ldexp: takes a float and an integer exponent, not {x.dtype} and "
                                f"{exponent.dtype}")
    return Call(x.dtype, "ldexp", (x, exponent))


def popcount(x: Any) -> Expr:
    """The number of set bits of an integer in its own width (an int8's -1 has 8)."""
    x = arith.convert(x)
    if is_float(x.dtype) or x.dtype == "bool":
        raise ScheduleTypeError(f"popcount: the operand is {x.dtype}; it counts the bits of an integer")
    return Call(x.dtype, "popcount", (x,))


def clz(x: Any) -> Expr:
    """The number of leading zero bits of an integer in its own width (all of them for 0), an
    int32 as TVM gives it."""
    x = arith.convert(x)
    if is_float(x.dtype) or x.dtype == "bool":
        raise ScheduleTypeError(f"te.clz: the operand is {x.dtype}; it counts the bits of an integer")
    return Call("int32", "clz", (x,))


#: Tests of a float's class, each a bool call (TVM's ``tir.isnan`` ...); an integer is never NaN
#: nor infinite.
FLOAT_TESTS = {"isnan": False, "isinf": False, "isfinite": True}


def _make_test(name: str) -> Any:
    def fn(x: Any) -> Expr:
        x = arith.convert(x)
        if not is_float(x.dtype):
            return arith.const(FLOAT_TESTS[name], "bool")
        return Call("bool", name, (x,))
    fn.__name__ = name
    fn.__doc__ = f"``{name}(x)``: a bool; for an integer *x* the constant {FLOAT_TESTS[name]}."
    return fn


isnan, isinf, isfinite = _make_test("isnan"), _make_test("isinf"), _make_test("isfinite")


def reinterpret(dtype: str, value: Any) -> Expr:
    """The bits of *value* read as *dtype* (TVM's ``tir.reinterpret``), which must have as many
    bits as *value*'s type."""
    value = arith.convert(value)
    dtype = check_dtype(dtype)
    if bits(dtype) != bits(value.dtype) or "bool" in (dtype, value.dtype):
        raise ValueError(f"reinterpret: {value.dtype} has {bits(value.dtype)} bits and {dtype} {bits(dtype)}; "
                         f"reinterpret between types of the same width (bool excluded)")
    return value if dtype == value.dtype else Call(dtype, "reinterpret", (value,))


def _fast(name: str, doc: str) -> Any:
    def fn(x: Any) -> Expr:
        x = arith.convert(x)
        if x.dtype != "float32":
            return _float_call(name, x)
        return Call("float32", f"fast_{name}", (x,))
    fn.__name__ = f"fast_{name}"
    fn.__doc__ = (f"``{name}(x)`` by a polynomial that vectorizes, for float32: {doc} (C target; the "
                  f"Python target computes {name}). ``te.{name}`` stays libm's; other dtypes take it.")
    return fn


fast_exp = _fast("exp", "TVM's ``topi.fast_exp``, within 1 ulp of the correctly rounded result over "
                        "the whole float range, inf and nan included")
fast_log = _fast("log", "within 1 ulp, subnormals, zero, inf and nan included")
fast_tanh = _fast("tanh", "TVM's ``topi.fast_tanh``, within 1 ulp")
fast_sigmoid = _fast("sigmoid", "``1 / (1 + exp(-x))`` within 1 ulp (computed in double precision), without "
                                "overflow for large ``|x|``")
fast_erf = _fast("erf", "TVM's ``topi.fast_erf``, within 1 ulp")


def abs(x: Any) -> Expr:  # noqa: A001 - te.abs
    """Absolute value of an integer or float expression."""
    x = arith.convert(x)
    if is_float(x.dtype):
        return Call(x.dtype, "fabs", (x,))
    v = arith.value_of(x)
    if v is not None:
        return arith.const(-v if v < 0 else v, x.dtype)
    return arith.select(x < 0, -x, x)


def power(x: Any, y: Any) -> Expr:
    """``x ** y`` on floats."""
    x, y = arith.match_types(x, y)
    if not is_float(x.dtype):
        raise ScheduleTypeError(f"te.power: arguments are {x.dtype}; cast them to a float type first")
    return Call(x.dtype, "pow", (x, y))


def likely(cond: Any) -> Expr:
    """Mark a condition as usually true (printed ``likely(...)`` around split-tail guards)."""
    c = arith.convert(cond)
    if c.dtype != "bool":
        raise ScheduleTypeError(f"likely: {c} is {c.dtype}, not bool")
    return Call("bool", "likely", (c,))
