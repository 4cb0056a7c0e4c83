"""XLA's element-wise ops by HLO opcode: which they are, and the value of one element.

Every op XLA counts as element-wise reads each operand at the output's index (a rank-0 operand
at ``()``), so its maps are known whatever its arithmetic. Where the DSL has the arithmetic
(``+``, ``min``, ``sin``, comparisons, logic on ``pred`` ...), the element is that expression;
otherwise (bitwise ops, ``popcnt``, complex parts ...) it is a pure call of ``hlo.<opcode>``,
which a user may register to run it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from schedule.base.errors import TeError
from schedule.ir import arith
from schedule.ir import intrinsics as intr
from schedule.ir.expr import Expr
from schedule.ir.extern_calls import call_pure_extern

UNARY = frozenset({
    "abs", "bitcast-convert", "cbrt", "ceil", "convert", "copy", "cosine", "count-leading-zeros", "erf",
    "exponential", "exponential-minus-one", "floor", "imag", "is-finite", "log", "log-plus-one", "logistic",
    "negate", "not", "popcnt", "real", "reduce-precision", "round-nearest-afz", "round-nearest-even", "rsqrt",
    "sign", "sine", "sqrt", "tan", "tanh"})
BINARY = frozenset({
    "add", "and", "atan2", "compare", "complex", "divide", "maximum", "minimum", "multiply", "or", "power",
    "remainder", "shift-left", "shift-right-arithmetic", "shift-right-logical", "stochastic-convert",
    "subtract", "xor"})
TERNARY = frozenset({"select", "clamp"})
#: Every element-wise opcode, with its number of operands.
ARITY = {**{k: 1 for k in UNARY}, **{k: 2 for k in BINARY}, **{k: 3 for k in TERNARY}}

_COMPARE = {"EQ": arith.equal, "NE": arith.not_equal, "LT": arith.lt, "LE": arith.le, "GT": arith.gt,
            "GE": arith.ge}

_EXPR: dict[str, Callable[..., Expr]] = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "divide": lambda a, b: a / b, "maximum": arith.max_expr, "minimum": arith.min_expr,
    "negate": lambda x: -x, "abs": intr.abs, "copy": lambda x: x, "exponential": intr.exp, "log": intr.log,
    "log-plus-one": intr.log1p, "sqrt": intr.sqrt, "rsqrt": intr.rsqrt, "tanh": intr.tanh, "sine": intr.sin,
    "cosine": intr.cos, "tan": intr.tan, "erf": intr.erf, "floor": intr.floor, "ceil": intr.ceil,
    "round-nearest-even": intr.round, "logistic": intr.sigmoid, "power": intr.power,
    "select": arith.select, "clamp": lambda lo, x, hi: arith.min_expr(arith.max_expr(x, lo), hi),
}
_LOGICAL: dict[str, Callable[..., Expr]] = {"and": arith.logical_and, "or": arith.logical_or,
                                            "not": arith.logical_not}


def direction(attrs: dict[str, str]) -> str:
    """A compare's direction (``EQ``, ``LT`` ...); ValueError if missing or unknown."""
    d = attrs.get("direction", "").strip()
    if d not in _COMPARE:
        raise ValueError(f"compare needs direction= one of {', '.join(_COMPARE)}, not {d!r}")
    return d


def element(opcode: str, dtype: str, args: Sequence[Any], attrs: dict[str, str] | None = None) -> Expr:
    """The value of one element of *opcode* on the elements *args*, of type *dtype*."""
    attrs = attrs or {}
    if opcode == "compare":
        return _COMPARE[direction(attrs)](args[0], args[1])
    if opcode == "convert":
        return arith.cast(dtype, args[0])
    fn = _LOGICAL.get(opcode) if all(arith.convert(a).dtype == "bool" for a in args) else None
    fn = fn or _EXPR.get(opcode)
    if fn is not None:
        try:
            value = fn(*args)
            return value if value.dtype == dtype else arith.cast(dtype, value)
        except (TeError, TypeError, ValueError):
            pass  # e.g. sin of an integer: XLA allows it, the DSL has no such call
    return call_pure_extern(dtype, f"hlo.{opcode}", *args)
