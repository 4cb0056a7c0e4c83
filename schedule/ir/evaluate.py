"""Direct numeric evaluation of an expression, for checking schedules against definitions.

Integers follow the expression's semantics exactly (``Div``/``Mod`` truncate, ``floordiv``
floors); floats are Python floats with IEEE results where Python would raise (``1.0 / 0.0`` is
inf, ``log(0.0)`` is -inf, ``sqrt(-1.0)`` is NaN), as C and NumPy compute them. Loads go
through a callback.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from schedule.base.errors import InternalError
from schedule.base.packed import get_global_func
from schedule.ir.arith import BIT_OPS
from schedule.ir.dtype import bits, is_bool, is_float
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
    ProducerLoad,
    Reduce,
    Select,
    StringImm,
    Sub,
    Var,
)
from schedule.ir.functor import ExprFunctor

Number = int | float
LoadFn = Callable[[Any, tuple[int, ...]], Number]


def float_div(a: Number, b: Number) -> float:
    """``a / b`` as IEEE computes it: inf, -inf or NaN where *b* is 0 (Python raises)."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _whole(fn: Callable[[float], int], x: Number) -> Number:
    """floor, ceil or trunc of a float, as a float, as C computes it: inf and NaN are their own,
    and a zero keeps the sign of *x* (``trunc(-0.5)`` is -0.0)."""
    try:
        r = float(fn(x))
    except (ValueError, OverflowError):
        return x
    return math.copysign(0.0, x) if r == 0 else r


def trunc_div(a: Number, b: Number) -> Number:
    if isinstance(a, float) or isinstance(b, float):
        return float_div(a, b)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def trunc_mod(a: Number, b: Number) -> Number:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.fmod(a, b)
        except ValueError:  # fmod(x, 0) and fmod(inf, x)
            return math.nan
    return a - trunc_div(a, b) * b


def floor_div(a: Number, b: Number) -> Number:
    if isinstance(a, float) or isinstance(b, float):
        return _whole(math.floor, float_div(a, b))
    return a // b


def floor_mod(a: Number, b: Number) -> Number:
    if isinstance(a, float) or isinstance(b, float):
        q = floor_div(a, b)
        return a - q * b if math.isfinite(q) else math.nan
    return a % b


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    Add: lambda a, b: a + b, Sub: lambda a, b: a - b, Mul: lambda a, b: a * b,
    Div: trunc_div, Mod: trunc_mod, FloorDiv: floor_div, FloorMod: floor_mod,
    # NaN propagates (NumPy's minimum/maximum): a NaN first operand is kept, a NaN second one taken
    Min: lambda a, b: a if a < b or a != a else b, Max: lambda a, b: a if a > b or a != a else b,
    EQ: lambda a, b: a == b, NE: lambda a, b: a != b, LT: lambda a, b: a < b,
    LE: lambda a, b: a <= b, GT: lambda a, b: a > b, GE: lambda a, b: a >= b,
}

def _ieee(fn: Callable[..., float], name: str) -> Callable[..., float]:
    """*fn* (a ``math`` function), with NumPy's IEEE result where it raises (a domain error,
    an overflow): NumPy's function *name*, or ``exp10`` as a power of 10."""
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError):
            with np.errstate(all="ignore"):
                values = [np.float64(a) for a in args]
                return float(np.power(10.0, *values) if name == "exp10" else getattr(np, name)(*values))
    call.__name__ = name
    return call


MATH_FUNCS: dict[str, Callable[..., float]] = {
    "exp": _ieee(math.exp, "exp"), "exp2": _ieee(lambda x: 2.0 ** x, "exp2"),
    "exp10": _ieee(lambda x: 10.0 ** x, "exp10"), "log": _ieee(math.log, "log"),
    "log2": _ieee(math.log2, "log2"), "log10": _ieee(math.log10, "log10"), "log1p": _ieee(math.log1p, "log1p"),
    "sqrt": _ieee(math.sqrt, "sqrt"), "rsqrt": lambda x: float_div(1.0, MATH_FUNCS["sqrt"](x)),
    "sin": _ieee(math.sin, "sin"), "cos": _ieee(math.cos, "cos"), "tan": _ieee(math.tan, "tan"),
    "sinh": _ieee(math.sinh, "sinh"), "cosh": _ieee(math.cosh, "cosh"), "tanh": math.tanh,
    "asin": _ieee(math.asin, "arcsin"), "acos": _ieee(math.acos, "arccos"), "atan": math.atan,
    "sigmoid": lambda x: float_div(1.0, 1.0 + _exp(-x)), "erf": math.erf,
    "floor": lambda x: _whole(math.floor, x), "ceil": lambda x: _whole(math.ceil, x),
    "round": lambda x: math.copysign(float(round(x)), x) if math.isfinite(x) else x,
    "nearbyint": lambda x: math.copysign(float(round(x)), x) if math.isfinite(x) else x,
    "asinh": math.asinh, "acosh": _ieee(math.acosh, "arccosh"), "atanh": _ieee(math.atanh, "arctanh"),
    "atan2": math.atan2, "hypot": math.hypot, "copysign": math.copysign, "nextafter": math.nextafter,
    "ldexp": _ieee(lambda x, n: math.ldexp(x, int(n)), "ldexp"),
    "trunc": lambda x: _whole(math.trunc, x),
    "fabs": abs, "pow": _ieee(math.pow, "power"), "fast_exp": lambda x: _exp(x), **BIT_OPS,
    "bitwise_not": lambda x: ~x, "isnan": math.isnan, "isinf": math.isinf, "isfinite": math.isfinite,
    # the set bits of the two's complement (32 bits, or 64 for values outside int32)
    "popcount": lambda x: bin(x & (0xFFFFFFFF if -2**31 <= x < 2**32 else 2**64 - 1)).count("1"),
}
MATH_FUNCS.update({f"fast_{name}": MATH_FUNCS[name] for name in ("log", "tanh", "sigmoid", "erf")})


def popcount_in(x: int, width: int) -> int:
    """The set bits of *x* in a two's complement of *width* bits (its dtype's)."""
    return (int(x) & ((1 << width) - 1)).bit_count()


def clz_in(x: int, width: int) -> int:
    """The leading zero bits of *x* in a two's complement of *width* bits (*width* for 0)."""
    return width - (int(x) & ((1 << width) - 1)).bit_length()


def nextafter_in(a: float, b: float, dtype: str) -> float:
    """The next *dtype* value after *a* towards *b*."""
    return float(np.nextafter(np.array(a, dtype), np.array(b, dtype)))


#: The bit counts, of the operand's own width.
BIT_COUNTS: dict[str, Callable[[int, int], int]] = {"popcount": popcount_in, "clz": clz_in}


def _exp(x: float) -> float:
    """exp that overflows to inf, as C's does, instead of raising."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def extern_function(name: str) -> Any:
    """The function an external call of *name* runs: one registered under the name, else the C
    math function it names (``expf``, ``__expf`` and ``exp`` alike); None if neither."""
    fn = get_global_func(name, allow_missing=True)
    if fn is not None:
        return fn
    base = name.removeprefix("__")
    for candidate in (base, base.removesuffix("f")):
        if candidate in MATH_FUNCS:
            return MATH_FUNCS[candidate]
        if candidate == "fmod":
            return math.fmod
    return None



class _Evaluator(ExprFunctor[Any]):
    bottom_up = False  # conditions are lazy and reductions rebind variables

    def __init__(self, env: Mapping[Var, Number], load: LoadFn | None) -> None:
        self._env = dict(env)
        self._load = load

    def visit_int_imm(self, e: IntImm) -> Number:
        return e.value

    def visit_float_imm(self, e: FloatImm) -> Number:
        return e.value

    def visit_var(self, e: Var) -> Number:
        if e not in self._env:
            raise KeyError(f"evaluate: no value for variable '{e.name}'")
        return self._env[e]

    def visit_default(self, e: Expr) -> Any:
        fn = _BINARY.get(type(e))
        if fn is None:
            raise InternalError(f"evaluate: cannot evaluate {type(e).__name__}")
        return fn(self(e.a), self(e.b))  # type: ignore[attr-defined]

    def visit_and(self, e: And) -> bool:
        return bool(self(e.a)) and bool(self(e.b))

    def visit_or(self, e: Or) -> bool:
        return bool(self(e.a)) or bool(self(e.b))

    def visit_not(self, e: Not) -> bool:
        return not self(e.a)

    def visit_select(self, e: Select) -> Any:
        t, f = self(e.true_value), self(e.false_value)
        return t if self(e.condition) else f

    def visit_cast(self, e: Cast) -> Any:
        v = self(e.value)
        if is_float(e.dtype):
            return float(v)
        if is_bool(e.dtype):
            return bool(v)
        return math.trunc(v)

    def visit_call(self, e: Call) -> Any:
        if e.name == "tvm_if_then_else":
            c, t, f = e.args
            return self(t) if self(c) else self(f)
        if e.name == "likely":
            return self(e.args[0])
        if e.name in ("call_pure_extern", "call_extern"):
            name = e.args[0]
            fn = extern_function(name.value) if isinstance(name, StringImm) else None
            if fn is None:
                raise ValueError(f"evaluate: no external function '{name}'; register it with te.register_func")
            return fn(*(self(a) for a in e.args[1:]))
        if e.name in BIT_COUNTS:
            return BIT_COUNTS[e.name](int(self(e.args[0])), bits(e.args[0].dtype))
        if e.name == "nextafter" and e.dtype != "float64":
            return nextafter_in(self(e.args[0]), self(e.args[1]), e.dtype)
        fn = MATH_FUNCS.get(e.name)
        if fn is None:
            raise InternalError(f"evaluate: unknown intrinsic '{e.name}'")
        return fn(*(self(a) for a in e.args))

    def visit_producer_load(self, e: ProducerLoad) -> Any:
        if self._load is None:
            raise InternalError(f"evaluate: a load of '{e.producer.name}' needs a load callback")
        return self._load(e.producer, tuple(int(self(i)) for i in e.indices))

    def visit_reduce(self, e: Reduce) -> Any:
        ranges = []
        for iv in e.axis:
            assert iv.dom is not None
            lo = int(self(iv.dom.min))
            ranges.append(range(lo, lo + int(self(iv.dom.extent))))
        acc = [self(x) for x in (e.init or e.combiner.identity_element)]
        for point in itertools.product(*ranges):
            inner = _Evaluator({**self._env, **{iv.var: p for iv, p in zip(e.axis, point)}}, self._load)
            if not inner(e.condition):
                continue
            values = [inner(s) for s in e.source]
            env = {**dict(zip(e.combiner.lhs, acc)), **dict(zip(e.combiner.rhs, values))}
            acc = [_Evaluator(env, None)(r) for r in e.combiner.result]
        return acc[e.value_index]


def evaluate(e: Expr, env: Mapping[Var, Number] | None = None, load: LoadFn | None = None) -> Any:
    """The value of *e* with variables from *env*; ``load(tensor, indices)`` reads tensor elements."""
    return _Evaluator(env or {}, load)(e)

