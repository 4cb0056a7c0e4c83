"""Binary operators with NumPy's broadcasting (TVM's ``topi.add``, ``topi.maximum``, ...): shapes
are aligned at the right, and a dimension of 1 stretches to the other's. An operand may be a
number, which takes the tensor's dtype. Two numbers give an expression, as in TVM."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from schedule.ir.expr import Expr
from schedule.ir.functor import structural_equal
from topi import tag
from topi.utils import const_value


def broadcast_shape(a: Sequence[Any], b: Sequence[Any]) -> tuple[Any, ...]:
    """The shape two shapes broadcast to.

    :raises ValueError: when a pair of dimensions differs and neither is 1.
    """
    out = []
    for k in range(1, max(len(a), len(b)) + 1):
        x = a[-k] if k <= len(a) else None
        y = b[-k] if k <= len(b) else None
        if x is None or _is_one(x):
            out.append(y if y is not None else x)
        elif y is None or _is_one(y) or _same(x, y):
            out.append(x)
        else:
            raise ValueError(f"broadcast: shapes {_text(a)} and {_text(b)} do not broadcast (dimension -{k}: "
                             f"{x} against {y}; one of them must be 1 or both equal)")
    return tuple(reversed(out))


def _is_one(d: Any) -> bool:
    return const_value(d) == 1


def _same(x: Any, y: Any) -> bool:
    vx, vy = const_value(x), const_value(y)
    return vx == vy if vx is not None and vy is not None else structural_equal(x, y)


def _text(shape: Sequence[Any]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _reader(t: Tensor, out_shape: Sequence[Any]) -> Callable[[Sequence[Expr]], Expr]:
    """How element *index* of the broadcast output reads *t*."""
    offset = len(out_shape) - len(t.shape)
    stretched = [_is_one(d) and not _is_one(out_shape[offset + k]) for k, d in enumerate(t.shape)]

    def read(index: Sequence[Expr]) -> Expr:
        return t[tuple(arith.const(0, index[offset + k].dtype) if s else index[offset + k]
                       for k, s in enumerate(stretched))]
    return read


def broadcast_op(fn: Callable[[Any, Any], Any], name: str) -> Callable[[Any, Any], Any]:
    """The broadcasting operator applying *fn* to each pair of elements."""

    def op(lhs: Any, rhs: Any) -> Any:
        if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
            return fn(_expr(lhs), _expr(rhs))
        dtype = (lhs if isinstance(lhs, Tensor) else rhs).dtype
        left = lhs if isinstance(lhs, Tensor) else arith.const(lhs, dtype) if not isinstance(lhs, Expr) else lhs
        right = rhs if isinstance(rhs, Tensor) else arith.const(rhs, dtype) if not isinstance(rhs, Expr) else rhs
        shape = broadcast_shape(left.shape if isinstance(left, Tensor) else (),
                                right.shape if isinstance(right, Tensor) else ())
        read_l = _reader(left, shape) if isinstance(left, Tensor) else (lambda index: left)
        read_r = _reader(right, shape) if isinstance(right, Tensor) else (lambda index: right)
        return te.compute(shape, lambda *index: fn(read_l(index), read_r(index)), name=f"T_{name}",
                          tag=tag.BROADCAST)
    op.__name__ = name
    op.__doc__ = f"``{name}`` of two tensors or numbers, element by element, with NumPy's broadcasting."
    return op


def _expr(x: Any) -> Any:
    return x if isinstance(x, Expr) else arith.const(x)


add = broadcast_op(lambda a, b: a + b, "add")
subtract = broadcast_op(lambda a, b: a - b, "subtract")
multiply = broadcast_op(lambda a, b: a * b, "multiply")
divide = broadcast_op(lambda a, b: a / b, "divide")
floor_divide = broadcast_op(te.floordiv, "floor_divide")
mod = broadcast_op(te.floormod, "mod")
power = broadcast_op(te.power, "power")
maximum = broadcast_op(lambda a, b: te.max(a, b), "maximum")
minimum = broadcast_op(lambda a, b: te.min(a, b), "minimum")
greater = broadcast_op(lambda a, b: a > b, "greater")
less = broadcast_op(lambda a, b: a < b, "less")
equal = broadcast_op(lambda a, b: a == b, "equal")
not_equal = broadcast_op(lambda a, b: a != b, "not_equal")
greater_equal = broadcast_op(lambda a, b: a >= b, "greater_equal")
less_equal = broadcast_op(lambda a, b: a <= b, "less_equal")
floor_mod = broadcast_op(te.floormod, "floor_mod")
bitwise_and = broadcast_op(lambda a, b: a & b, "bitwise_and")
bitwise_or = broadcast_op(lambda a, b: a | b, "bitwise_or")
bitwise_xor = broadcast_op(lambda a, b: a ^ b, "bitwise_xor")
left_shift = broadcast_op(lambda a, b: a << b, "left_shift")
right_shift = broadcast_op(lambda a, b: a >> b, "right_shift")
logical_and = broadcast_op(arith.logical_and, "logical_and")
logical_or = broadcast_op(arith.logical_or, "logical_or")
logical_xor = broadcast_op(lambda a, b: a != b, "logical_xor")  # of two bools: differs


def where(condition: Tensor, x: Any, y: Any) -> Tensor:
    """*x* where *condition* is true, else *y*, the three broadcast together."""
    tensors = [t for t in (condition, x, y) if isinstance(t, Tensor)]
    if not isinstance(condition, Tensor) or not tensors:
        raise TypeError(f"where: the condition is a tensor, got {condition!r}")
    dtype = (x if isinstance(x, Tensor) else y).dtype if isinstance(x, Tensor) or isinstance(y, Tensor) else "float32"
    shape: tuple[Any, ...] = ()
    for t in tensors:
        shape = broadcast_shape(shape, t.shape)
    reads = [_reader(v, shape) if isinstance(v, Tensor) else (lambda index, v=v: arith.const(v, dtype)
                                                                if not isinstance(v, Expr) else v)
             for v in (condition, x, y)]
    return te.compute(shape, lambda *index: te.select(reads[0](index) != arith.const(0, condition.dtype)
                                                      if condition.dtype != "bool" else reads[0](index),
                                                      reads[1](index), reads[2](index)),
                      name="T_where", tag=tag.BROADCAST)
