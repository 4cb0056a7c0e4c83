"""The reads a consumer makes of its producers' tensors.

Each read carries the condition under which it is evaluated: the branch conditions of the
``if_then_else`` calls above it and, inside a reduction's source, the reduction's ``where``.
``select`` evaluates both branches, so it adds no condition.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from schedule import arith
from schedule.ir.expr import Call, Expr, ProducerLoad, Reduce
from schedule.ir.functor import children
from schedule.operation.tensor import Tensor


@dataclass(frozen=True)
class Access:
    """``tensor[indices]`` read whenever *condition* holds."""

    tensor: Tensor
    indices: tuple[Expr, ...]
    condition: Expr


def _walk(e: Expr, cond: Expr, wanted: Collection[Tensor], out: list[Access]) -> None:
    stack = [(e, cond)]
    while stack:
        x, c = stack.pop()
        if isinstance(x, ProducerLoad) and x.producer in wanted:
            out.append(Access(x.producer, x.indices, c))
        if isinstance(x, Call) and x.name == "tvm_if_then_else":
            test, then, other = x.args
            stack.extend(((other, arith.logical_and(c, arith.logical_not(test))),
                          (then, arith.logical_and(c, test)), (test, c)))
        elif isinstance(x, Reduce):
            inner = arith.logical_and(c, x.condition)
            stack.extend([(s, inner) for s in reversed(x.source)])
            stack.extend((i, c) for i in reversed(x.init))
            stack.append((x.condition, c))
        else:
            stack.extend((child, c) for child in reversed(list(children(x))))


def body_reads(body: Sequence[Expr], tensors: Collection[Tensor]) -> list[Access]:
    """Every read of one of *tensors* in a compute's *body*, in the order it is visited; once
    for a multi-output reduction, whose bodies share one source."""
    out: list[Access] = []
    bodies = body[:1] if body and isinstance(body[0], Reduce) else body
    wanted = set(tensors)  # a list of thousands of operands (a concatenate) is no lookup table
    for b in bodies:
        _walk(b, arith.const(True), wanted, out)
    return out
