"""The floating-point operations a schedule's computes perform, counted from their bodies as
TVM's ``autotvm.task.task.compute_flop`` counts them (see :func:`_count`); a compute's count
is multiplied by the size of its domain."""

from __future__ import annotations

from typing import Any

from schedule.base.errors import ScheduleError
from schedule.ir import arith
from schedule.ir.expr import (
    And,
    BinaryOp,
    Call,
    CmpOp,
    Expr,
    Not,
    Or,
    ProducerLoad,
    Reduce,
    Select,
)
from schedule.ir.functor import children, fold
from schedule.operation.compute import ComputeOp


def _extent(iv: Any, what: str) -> int:
    value = arith.value_of(iv.dom.extent) if iv.dom is not None else None
    if value is None:
        raise ValueError(f"compute_flop: the extent of {what} '{iv.var.name}' is not a constant; "
                         "count the flops yourself with cfg.add_flop(...)")
    return int(value)


def _count(e: Expr) -> int:
    """TVM's count of *e*, bottom up (any depth): one per arithmetic, comparison, min/max or
    logical node; a select counts its condition and its costlier branch; a call its
    arguments; a reduction its steps times its combiner's and source's counts; a tensor read
    nothing (its index arithmetic is not the computation's)."""
    def combine(x: Expr, counts: list[int]) -> int:
        if isinstance(x, Reduce):
            steps = 1
            for iv in x.axis:
                steps *= _extent(iv, "reduction axis")
            return steps * sum(counts)
        if isinstance(x, Select):
            return counts[0] + max(counts[1], counts[2])
        if isinstance(x, (BinaryOp, CmpOp, And, Or, Not)):
            return 1 + sum(counts)
        return sum(counts)  # calls, casts, reads, variables and constants: what is inside them
    return fold(e, _parts, combine)


def _parts(x: Expr) -> list[Expr]:
    """What :func:`_count` counts inside *x*: a reduction's first combiner result and source."""
    if isinstance(x, ProducerLoad):
        return []
    if isinstance(x, Reduce):
        return [x.combiner.result[0], x.source[0]]
    if isinstance(x, Select):
        return [x.condition, x.true_value, x.false_value]
    return list(children(x)) if not isinstance(x, Call) else list(x.args)


def compute_flop(s: Any) -> float:
    """The operations of every compute stage of schedule *s*.

    :raises ValueError: when a domain is not constant.
    :raises ScheduleError: (also a ValueError and, as TVM's error, a RuntimeError) when no compute
        performs any operation: give the count with ``cfg.add_flop``.
    """
    total = 0
    for stage in s.stages:
        op = stage.op
        if not isinstance(op, ComputeOp):
            continue
        size = 1
        for iv in op.axis:
            size *= _extent(iv, "axis")
        bodies = op.body[:1] if isinstance(op.body[0], Reduce) else op.body
        total += size * sum(_count(b) for b in bodies)
    if total == 0:
        raise ScheduleError("compute_flop: no floating-point operation found; count them with cfg.add_flop(...)")
    return float(total)
