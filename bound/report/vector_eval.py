"""Integer index expressions evaluated over NumPy arrays of variable values, one row per point.

Counting the iterations of a loop nest evaluates the same bounds at many points; doing it a
column at a time keeps the cost in NumPy. Semantics are those of :mod:`schedule.ir.evaluate`
(``Div``/``Mod`` truncate, ``floordiv``/``floormod`` floor); a node this module does not know
is evaluated point by point with :func:`schedule.ir.evaluate.evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from typing import Any

import numpy as np

from schedule import arith
from schedule.ir.dtype import is_bool, is_float
from schedule.ir.evaluate import evaluate
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
    Var,
)
from schedule.ir.functor import children


def _safe(b: np.ndarray) -> np.ndarray:
    # A division by zero can only sit in a select branch that is not taken.
    return np.where(b == 0, 1, b)


def _trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    b = _safe(b)
    q = np.abs(a) // np.abs(b)
    return np.where((a >= 0) == (b >= 0), q, -q)


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    Add: np.add, Sub: np.subtract, Mul: np.multiply,
    FloorDiv: lambda a, b: np.floor_divide(a, _safe(b)), FloorMod: lambda a, b: np.mod(a, _safe(b)),
    Div: _trunc_div, Mod: lambda a, b: a - _trunc_div(a, b) * _safe(b),
    Min: np.minimum, Max: np.maximum,
    EQ: np.equal, NE: np.not_equal, LT: np.less, LE: np.less_equal, GT: np.greater, GE: np.greater_equal,
    And: np.logical_and, Or: np.logical_or,
}


def evaluate_columns(exprs: Sequence[Expr], env: Mapping[Var, np.ndarray], size: int,
                     known: Mapping[int, np.ndarray] | None = None) -> list[np.ndarray]:
    """The value of each expression at each of *size* points; *env* gives every variable's
    values as an array of that length, and *known* the values of some sub-expressions (by
    identity). Shared sub-expressions are evaluated once."""
    memo: dict[int, Any] = dict(known or {})
    for v, values in env.items():
        memo.setdefault(id(v), values)
    for root in exprs:
        stack: list[tuple[Expr, bool]] = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if id(e) in memo:
                continue
            if not ready:
                stack.append((e, True))
                stack.extend((c, False) for c in children(e) if id(c) not in memo)
                continue
            memo[id(e)] = evaluate_node(e, memo, size)
    return [column(memo[id(e)], size) for e in exprs]


def column(value: Any, size: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(value), (size,))


def evaluate_node(e: Expr, values: Mapping[int, Any], size: int) -> Any:
    """*e* at every point, its children's values given by identity in *values* (a scalar
    where a value is the same everywhere)."""
    fn = _BINARY.get(type(e))
    if fn is not None:
        return fn(values[id(e.a)], values[id(e.b)])  # type: ignore[attr-defined]
    match e:
        case IntImm():
            return np.int64(e.value) if not is_bool(e.dtype) else bool(e.value)
        case Var():
            raise KeyError(f"no value for variable '{e.name}'")
        case Not():
            return np.logical_not(values[id(e.a)])
        case Select():
            return np.where(values[id(e.condition)], values[id(e.true_value)], values[id(e.false_value)])
        case Cast() if not is_float(e.dtype) and not is_float(e.value.dtype):
            v = np.asarray(values[id(e.value)])
            return v != 0 if is_bool(e.dtype) else v.astype(np.int64)
        case Call(name="likely"):
            return values[id(e.args[0])]
    return _pointwise(e, values, size)


def _pointwise(e: Expr, values: Mapping[int, Any], size: int) -> np.ndarray:
    """*e* evaluated point by point from its children's values (a node with no column form)."""
    kids = {id(c): column(values[id(c)], size) for c in children(e)}

    def at(k: int) -> Expr:
        def const(c: Any) -> Any:
            if isinstance(c, Expr):
                return arith.const(kids[id(c)][k].item(), c.dtype)
            if isinstance(c, tuple):
                return tuple(const(x) for x in c)
            return c
        return replace(e, **{f.name: const(getattr(e, f.name)) for f in fields(e)})
    return np.array([evaluate(at(k)) for k in range(size)])
