"""The floating-point operations of a DAG as TVM's auto_scheduler estimates them
(``ComputeDAG.flop_ct``): per compute, its ``FLOP`` attribute if it has one, else its domain's
size times its body's count, where an arithmetic, comparison or logical node counts 1 when an
operand has the kind (float, int ...) of the compute's output, a reduction its steps times its
combiner and source, a select its condition and its costlier branch, and a tensor read or a
constant nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schedule.ir import arith
from schedule.ir.dtype import type_code
from schedule.ir.expr import And, BinaryOp, Call, Cast, CmpOp, Expr, Not, Or, ProducerLoad, Reduce, Select
from schedule.ir.functor import fold
from schedule.operation.compute import ComputeOp


def _steps(axes: Sequence[Any]) -> int | None:
    total = 1
    for iv in axes:
        value = arith.value_of(iv.dom.extent)
        if value is None:
            return None
        total *= int(value)
    return total


def _parts(x: Expr) -> list[Expr]:
    if isinstance(x, ProducerLoad):
        return []
    if isinstance(x, Reduce):
        return [*x.combiner.result, *x.source]
    if isinstance(x, Select):
        return [x.condition, x.true_value, x.false_value]
    if isinstance(x, Call):
        return list(x.args)
    if isinstance(x, Cast):
        return [x.value]
    if isinstance(x, (BinaryOp, CmpOp, And, Or)):
        return [x.a, x.b]
    if isinstance(x, Not):
        return [x.a]
    return []


def _count(e: Expr, code: str) -> float | None:
    """The count of *e* for an output of type kind *code* (None when a size is not constant),
    bottom up (any depth)."""
    def combine(x: Expr, counts: list[float | None]) -> float | None:
        if any(c is None for c in counts):
            return None
        if isinstance(x, Reduce):
            steps = _steps(x.axis)
            return None if steps is None else steps * sum(counts)
        if isinstance(x, Select):
            return counts[0] + max(counts[1], counts[2])
        if isinstance(x, (BinaryOp, CmpOp, And, Or)):
            return (1.0 if code in (type_code(x.a.dtype), type_code(x.b.dtype)) else 0.0) + sum(counts)
        if isinstance(x, Not):
            return (1.0 if type_code(x.dtype) == code else 0.0) + counts[0]
        return float(sum(counts))
    return fold(e, _parts, combine)


def estimate_flop(ops: Sequence[Any]) -> float:
    """The DAG's count (see the module), or -1 when some size is not constant."""
    total = 0.0
    for op in ops:
        if not isinstance(op, ComputeOp):
            continue
        given = (op.attrs or {}).get("FLOP")
        if given is not None:
            total += float(arith.value_of(given) if hasattr(given, "dtype") else given)
            continue
        size = _steps(op.axis)
        code = type_code(op.output(0).dtype)
        counts = [_count(b, code) for b in op.body]
        if size is None or any(c is None for c in counts):
            return -1.0
        total += size * sum(counts)
    return total
