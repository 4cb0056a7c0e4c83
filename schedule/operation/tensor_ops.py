"""Arithmetic on whole tensors: ``A + B``, ``A * 2``, ``k - A`` (TVM's tensor operator overloads,
which TOPI's broadcast operators implement).

A tensor with a scalar (a number or an expression) is an element-wise compute tagged
``elemwise``; two tensors broadcast as NumPy does (dimensions aligned from the right, a
dimension of 1 stretched) into a compute tagged ``broadcast``. Computes are named as TOPI
names them (``T_add``, ``T_multiply`` ...).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from schedule.base.errors import ScheduleError
from schedule.ir import arith
from schedule.ir.dtype import check_dtype
from schedule.ir.expr import Expr
from schedule.operation.compute import compute
from schedule.operation.tensor import Tensor, install_binary

#: TOPI's tags for the two kinds.
ELEMWISE = "elemwise"
BROADCAST = "broadcast"

#: Operator -> (TOPI's name, the element operation).
OPS: dict[str, tuple[str, Callable[[Any, Any], Expr]]] = {
    "add": ("T_add", operator.add),
    "sub": ("T_subtract", operator.sub),
    "mul": ("T_multiply", operator.mul),
    "truediv": ("T_divide", operator.truediv),
    "floordiv": ("T_floor_divide", arith.floordiv),
    "mod": ("T_floor_mod", arith.floormod),
}


def tensor_binary(kind: str, a: Any, b: Any) -> Tensor | Any:
    """``a <kind> b`` where one or both are tensors; NotImplemented for another operand.
    ``astype`` converts the tensor *a* to the dtype *b*."""
    if kind == "astype":
        dtype = check_dtype(b)
        return compute(a.shape, lambda *i: a(*i).astype(dtype), name="T_cast", tag=ELEMWISE)
    name, fn = OPS[kind]
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _broadcast(name, fn, a, b)
    tensor, scalar, tensor_first = (a, b, True) if isinstance(a, Tensor) else (b, a, False)
    if not arith.is_expr_like(scalar):
        return NotImplemented
    k = arith.convert(scalar)

    def element(*i: Any) -> Expr:
        x = tensor(*i)
        return fn(x, k) if tensor_first else fn(k, x)

    return compute(tensor.shape, element, name=name, tag=ELEMWISE)


def _broadcast(name: str, fn: Callable[[Any, Any], Expr], a: Tensor, b: Tensor) -> Tensor:
    shape = broadcast_shape(a.shape, b.shape, name)
    rank = len(shape)

    def index(t: Tensor, i: tuple[Any, ...]) -> Expr:
        own = i[rank - t.ndim:]
        return t(*(0 if arith.value_of(d) == 1 and arith.value_of(s) != 1 else x
                   for x, d, s in zip(own, t.shape, shape[rank - t.ndim:])))

    return compute(shape, lambda *i: fn(index(a, i), index(b, i)), name=name, tag=BROADCAST)


def broadcast_shape(x: tuple[Expr, ...], y: tuple[Expr, ...], what: str = "broadcast") -> tuple[Expr, ...]:
    """NumPy's broadcast of two shapes.

    :raises ScheduleError: for dimensions that differ and neither of which is 1.
    """
    out = []
    for k in range(1, max(len(x), len(y)) + 1):
        a = x[-k] if k <= len(x) else None
        b = y[-k] if k <= len(y) else None
        if a is None or b is None:
            out.append(a if b is None else b)
        elif arith.value_of(a) == 1:
            out.append(b)
        elif arith.value_of(b) == 1 or bool(a == b):
            out.append(a)
        else:
            raise ScheduleError(f"{what}: shapes ({', '.join(map(str, x))}) and ({', '.join(map(str, y))}) do not "
                                f"broadcast: dimension {a} against {b}; each pair must be equal or one of them 1")
    return tuple(reversed(out))


install_binary(tensor_binary)
