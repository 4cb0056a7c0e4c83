"""Element-wise operators (TVM's ``topi.exp``, ``topi.clip``, ``topi.cast``, ...): one output
element per input element, tagged ``elemwise``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from schedule.ir.dtype import is_float
from schedule.ir.functor import structural_equal
from topi import tag


def _check(name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"topi.{name}: takes a tensor, got {x!r}")
    return x


def elemwise(fn: Callable[[Any], Any], name: str, floating: bool = False) -> Callable[[Tensor], Tensor]:
    """The operator applying *fn* to each element; a *floating* one (exp, sqrt ...) takes a bool
    or integer tensor's elements as float32 (TVM takes such tensors; the math needs floats)."""

    def op(x: Tensor) -> Tensor:
        _check(name, x)
        cast = floating and not is_float(x.dtype)
        return te.compute(x.shape, lambda *i: fn(x[i].astype("float32") if cast else x[i]), name=f"T_{name}",
                          tag=tag.ELEMWISE)
    op.__name__ = name
    op.__doc__ = f"``{name}`` of each element."
    return op


exp = elemwise(te.exp, "exp", floating=True)
log = elemwise(te.log, "log", floating=True)
log2 = elemwise(te.log2, "log2", floating=True)
sqrt = elemwise(te.sqrt, "sqrt", floating=True)
rsqrt = elemwise(te.rsqrt, "rsqrt", floating=True)
tanh = elemwise(te.tanh, "tanh", floating=True)
sigmoid = elemwise(te.sigmoid, "sigmoid", floating=True)
erf = elemwise(te.erf, "erf", floating=True)
sin = elemwise(te.sin, "sin", floating=True)
cos = elemwise(te.cos, "cos", floating=True)
tan = elemwise(te.tan, "tan", floating=True)
log10 = elemwise(te.log10, "log10", floating=True)
sinh = elemwise(te.sinh, "sinh", floating=True)
cosh = elemwise(te.cosh, "cosh", floating=True)
asin = elemwise(te.asin, "asin", floating=True)
acos = elemwise(te.acos, "acos", floating=True)
atan = elemwise(te.atan, "atan", floating=True)
asinh = elemwise(te.asinh, "asinh", floating=True)
acosh = elemwise(te.acosh, "acosh", floating=True)
atanh = elemwise(te.atanh, "atanh", floating=True)
abs = elemwise(te.abs, "abs")  # noqa: A001 - TVM's name
floor = elemwise(te.floor, "floor")
ceil = elemwise(te.ceil, "ceil")
round = elemwise(te.round, "round")  # noqa: A001 - TVM's name
trunc = elemwise(te.trunc, "trunc")
negative = elemwise(lambda v: -v, "negative")
bitwise_not = elemwise(lambda v: ~v, "bitwise_not")


# The float class tests are TVM's intrinsics (a fast_math build may assume neither NaN nor
# infinity: its compiler takes every float to be finite). Integers are always finite numbers.
isnan = elemwise(te.isnan, "isnan")
isinf = elemwise(te.isinf, "isinf")
isfinite = elemwise(te.isfinite, "isfinite")
logical_not = elemwise(arith.logical_not, "logical_not")
sign = elemwise(lambda v: te.Select(v < 0, arith.const(-1, v.dtype),
                                    te.Select(v > 0, arith.const(1, v.dtype), arith.const(0, v.dtype))), "sign")
identity = elemwise(lambda v: v, "identity")
fast_exp = elemwise(te.fast_exp, "fast_exp")
fast_tanh = elemwise(te.fast_tanh, "fast_tanh")
fast_erf = elemwise(te.fast_erf, "fast_erf")
fast_log = elemwise(te.fast_log, "fast_log")


def clip(x: Tensor, a_min: Any, a_max: Any) -> Tensor:
    """Each element limited to [a_min, a_max]."""
    _check("clip", x)
    lo, hi = arith.const(a_min, x.dtype), arith.const(a_max, x.dtype)
    return te.compute(x.shape, lambda *i: te.max(te.min(x[i], hi), lo), name="T_clip", tag=tag.ELEMWISE)


def cast(x: Any, dtype: str) -> Any:
    """Each element converted to *dtype* (a number becomes a constant)."""
    if not isinstance(x, Tensor):
        return arith.const(x, dtype)
    return te.compute(x.shape, lambda *i: x[i].astype(dtype), name="T_cast", tag=tag.ELEMWISE)


def reinterpret(x: Tensor, dtype: str) -> Tensor:
    """Each element's bits read as *dtype*, of the same width (NumPy's ``view``)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"topi.reinterpret: takes a tensor, got {x!r}")
    te.reinterpret(dtype, arith.const(0, x.dtype))  # refuses a type of another width now
    return te.compute(x.shape, lambda *i: te.reinterpret(dtype, x[i]), name="T_reinterpret", tag=tag.ELEMWISE)


def elemwise_sum(xs: Any) -> Tensor:
    """The element-wise sum of the tensors *xs*, which share one shape and dtype (TVM's
    ``topi.elemwise_sum``, stage ``T_elemwise_sum``).

    :raises TypeError: for anything but a non-empty list of tensors; :raises ValueError: for
        tensors of different shapes or dtypes.
    """
    if not isinstance(xs, (list, tuple)) or not xs:
        raise TypeError(f"topi.elemwise_sum: takes a non-empty list of tensors, got {xs!r}")
    tensors = [_check("elemwise_sum", x) for x in xs]
    first = tensors[0]
    for t in tensors[1:]:
        if t.dtype != first.dtype or len(t.shape) != len(first.shape) or not all(
                structural_equal(a, b) for a, b in zip(t.shape, first.shape)):
            raise ValueError(f"topi.elemwise_sum: tensor '{t.name}' ({t.dtype}, shape {list(t.shape)}) differs from "
                             f"'{first.name}' ({first.dtype}, shape {list(first.shape)}); sum tensors of one shape "
                             f"and dtype (topi.add broadcasts)")

    def total(*i: Any) -> Any:
        out = first[i]
        for t in tensors[1:]:
            out = out + t[i]
        return out
    return te.compute(first.shape, total, name="T_elemwise_sum", tag=tag.ELEMWISE)


def q_multiply_shift(x: Any, multiplier: Any, q: int, left_shift: Any, right_shift: Any, shift_left: Any) -> Any:
    """TVM's fixed-point multiply (``tir.q_multiply_shift``): ``x`` (shifted left by
    *left_shift* where *shift_left* holds) times the Q-*q* *multiplier*, in int64, rounded to
    nearest (halves up) and shifted right by ``right_shift + q``, as int32."""
    wide = x.astype("int64")
    if isinstance(shift_left, bool):
        wide = wide << arith.convert(left_shift).astype("int64") if shift_left else wide
    else:
        wide = te.if_then_else(shift_left, wide << arith.convert(left_shift).astype("int64"), wide)
    wide = wide * arith.convert(multiplier).astype("int64")
    total = arith.convert(right_shift).astype("int64") + q
    wide = (wide + (arith.const(1, "int64") << (total - 1))) >> total
    return wide.astype("int32")


def fixed_point_multiply(x: Tensor, multiplier: int, shift: int) -> Tensor:
    """*x* (int32) times the fixed-point number ``multiplier * 2**-31 * 2**shift`` (*multiplier* a
    Q31 number), rounded to nearest, as TVM computes it; a multiplier of ``1 << 30`` (one half)
    is a plain shift, rounded when it goes right."""
    _check("fixed_point_multiply", x)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (multiplier, shift)):
        raise TypeError(f"topi.fixed_point_multiply: multiplier and shift are ints, got {multiplier!r}, {shift!r}")

    def element(*i: Any) -> Any:
        value = x(*i)
        if multiplier == 1 << 30:  # a power of two: shift only
            exp = shift - 1
            if exp > 0:
                return value << arith.const(exp, value.dtype)
            if exp == 0:
                return value
            one = arith.const(1, value.dtype)
            return (value + (one << arith.const(-exp - 1, value.dtype))) >> arith.const(-exp, value.dtype)
        return q_multiply_shift(value, arith.const(multiplier, "int32"), 31, arith.const(max(shift, 0), "int32"),
                                arith.const(max(-shift, 0), "int32"), shift > 0)
    return te.compute(x.shape, element, tag=tag.ELEMWISE)


def fixed_point_multiply_per_axis(x: Tensor, y: Tensor, lshift: Tensor, rshift: Tensor, is_lshift_required: int,
                                  is_rshift_required: int, axes: Any) -> Tensor:
    """:func:`fixed_point_multiply` with a multiplier and shifts per position along *axes*
    (*y*, *lshift*, *rshift* indexed by *x*'s indices at *axes*)."""
    for name, t in (("x", x), ("y", y), ("lshift", lshift), ("rshift", rshift)):
        _check(f"fixed_point_multiply_per_axis ({name})", t)
    axes = [int(a) for a in (axes if isinstance(axes, (list, tuple)) else [axes])]

    def element(*i: Any) -> Any:
        at = tuple(i[a] for a in axes)
        return q_multiply_shift(x(*i), y(*at), 31, lshift(*at), rshift(*at), bool(is_lshift_required))
    return te.compute(x.shape, element, tag=tag.BROADCAST)
