"""What TVM's schedules share (``topi.utils.traverse_inline`` and the target they run for):
the outputs as a list, a walk of the operations from the outputs that inlines every injective
stage that is not an output, and the kind of the current target."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import schedule as te
from lower.target import Target
from schedule import Tensor
from schedule.operation.compute import ComputeOp
from schedule.schedule.auto_inline import is_scheduled
from topi import tag


def as_outputs(op: str, outs: Any) -> list[Tensor]:
    """*outs* (a tensor or a list of tensors) as a list.

    :raises TypeError: for anything else.
    """
    tensors = [outs] if isinstance(outs, Tensor) else list(outs) if isinstance(outs, (list, tuple)) else None
    if not tensors or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"topi.{op}: takes a tensor or a list of tensors (the outputs), got {outs!r}")
    return tensors


def new_schedule(op: str, outs: Any) -> tuple[te.Schedule, list[Tensor]]:
    """A fresh schedule of *outs*, and *outs* as a list."""
    tensors = as_outputs(op, outs)
    return te.create_schedule([t.op for t in tensors]), tensors


def schedule_outputs(op: str, outs: Any, place: Callable[[te.Schedule, Tensor], Any]) -> te.Schedule:
    """A schedule of *outs* with every injective producer inlined and *place* applied to each
    output that is a compute (the shape of TVM's ``schedule_injective``)."""
    s, tensors = new_schedule(op, outs)
    te.schedule.AutoInlineInjective(s)
    for t in tensors:
        if isinstance(t.op, ComputeOp):
            place(s, t)
    return s


def read_by_other_ops(s: te.Schedule) -> set[Any]:
    """The operations of *s* that an extern, scan or other non-compute operation reads: they
    must be realized, never inlined."""
    return {t.op for st in s.stages if not isinstance(st.op, ComputeOp) for t in st.op.input_tensors}


def traverse_inline(s: te.Schedule, final_op: Any, callback: Callable[[Any], None]) -> None:
    """Visit every operation *final_op* reads, producers after consumers, each once: inline it if
    it is injective, not an output, not read by a non-compute operation and not scheduled yet (a
    consumer's callback may have placed it), and call *callback* on every compute. Iterative, so
    any depth of pipeline works."""
    outputs = {st.op for st in s.stages if st.is_output} | read_by_other_ops(s)
    seen: set[Any] = set()
    stack = [final_op]
    while stack:
        op = stack.pop()
        if op in seen or not isinstance(op, ComputeOp):
            continue
        seen.add(op)
        if tag.is_injective(op.tag) and op not in outputs and not s[op].is_output and not is_scheduled(s[op]):
            s[op].compute_inline()
        callback(op)
        stack.extend(t.op for t in reversed(op.input_tensors))


def on_gpu() -> bool:
    """Whether the current target (``with Target(...)``) is a GPU kind."""
    target = Target.current()
    return target is not None and target.is_gpu


def max_threads(default: int = 1024) -> int:
    """The current target's ``max_num_threads`` (1024, CUDA's, unless the target says)."""
    target = Target.current()
    value = target.attrs.get("max_num_threads") if target is not None else None
    return int(value) if value is not None else default
