"""The computation a search task schedules (TVM's ``ComputeDAG``): its tensors, and the text
TVM prints for it, one line per operation in dependence order::

    A = PLACEHOLDER [512, 512]
    B = PLACEHOLDER [512, 512]
    matmul(i, j) += (A[i, k]*B[k, j])
    C = PLACEHOLDER [512, 512]
    out(i, j) = (matmul[i, j] + C[i, j])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schedule import PlaceholderOp, Tensor
from schedule.ir.expr import Add, Max, Min, Mul, ProducerLoad, Reduce
from schedule.ir.printer import ExprPrinter
from tune.auto_scheduler.workload import workload_tensors

_REDUCE_SIGNS = {Add: "+=", Max: "max=", Min: "min=", Mul: "*="}


class _DagPrinter(ExprPrinter):
    """Loads as TVM's DAG prints them: ``A[i, k]``."""

    def visit_producer_load(self, e: ProducerLoad) -> str:
        return f"{e.producer.op.name}[{', '.join(self(i) for i in e.indices)}]"


class ComputeDAG:
    """The operations of *compute* (a list of tensors: inputs and outputs, or a workload key),
    in dependence order."""

    def __init__(self, compute: Any) -> None:
        tensors = workload_tensors(compute) if isinstance(compute, str) else compute
        if not isinstance(tensors, (list, tuple)) or not tensors or not all(isinstance(t, Tensor) for t in tensors):
            raise TypeError(f"ComputeDAG: a list of tensors or a workload key, got {compute!r}")
        self.tensors: list[Tensor] = list(tensors)
        self.ops = _ordered_ops(self.tensors)

    def __str__(self) -> str:
        printer = _DagPrinter()
        lines = []
        for op in self.ops:
            if isinstance(op, PlaceholderOp):
                lines.append(f"{op.name} = PLACEHOLDER [{', '.join(printer(d) for d in op.shape)}]")
                continue
            body = getattr(op, "body", None)
            if body is None:  # an extern or other operation
                lines.append(f"{op.name} = EXTERN")
                continue
            for k, value in enumerate(body):
                name = op.name if len(body) == 1 else f"{op.name}.v{k}"
                indices = ", ".join(iv.var.name for iv in op.axis)
                if isinstance(value, Reduce):
                    sign = _REDUCE_SIGNS.get(type(value.combiner.result[value.value_index]), "reduce=")
                    text = ", ".join(printer(s) for s in value.source)
                    lines.append(f"{name}({indices}) {sign} {text}")
                else:
                    lines.append(f"{name}({indices}) = {printer(value)}")
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"ComputeDAG({[t.name for t in self.tensors]})"


def _ordered_ops(tensors: Sequence[Tensor]) -> list[Any]:
    """Every operation the outputs read, each after its inputs, inputs in their order (then
    any input no output reads)."""
    order: list[Any] = []
    seen: set[int] = set()
    computed = [t for t in tensors if not isinstance(t.op, PlaceholderOp)]
    for root in computed + [t for t in tensors if isinstance(t.op, PlaceholderOp)]:
        stack: list[tuple[Any, bool]] = [(root.op, False)]
        while stack:
            op, expanded = stack.pop()
            if expanded:
                order.append(op)
                continue
            if id(op) in seen:
                continue
            seen.add(id(op))
            stack.append((op, True))
            stack.extend((t.op, False) for t in reversed(list(op.input_tensors)) if id(t.op) not in seen)
    return order
