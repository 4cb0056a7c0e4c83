"""TVM's CUDA schedules of injective operators, and the fallback every other CUDA schedule
starts from: each stage's axes fused and split over blocks and threads."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule.operation.compute import ComputeOp
from topi.traverse import max_threads, new_schedule, read_by_other_ops, schedule_outputs, traverse_inline


def bind_flat(sch: te.Schedule, out: te.Tensor, threads: int | None = None) -> Any:
    """*out*'s axes fused, split by *threads* (the target's ``max_num_threads``) and bound to
    ``blockIdx.x`` and ``threadIdx.x``; the thread loop, or None for a scalar."""
    axes = sch[out].op.axis
    if not axes:
        return None
    fused = sch[out].fuse(*axes) if len(axes) > 1 else axes[0]
    bx, tx = sch[out].split(fused, factor=threads or max_threads())
    sch[out].bind(bx, te.thread_axis("blockIdx.x"))
    sch[out].bind(tx, te.thread_axis("threadIdx.x"))
    return tx


def schedule_injective_from_existing(sch: te.Schedule, out: te.Tensor) -> te.Schedule:
    """In *sch*: *out* over blocks and threads, as :func:`bind_flat`."""
    bind_flat(sch, out)
    return sch


def schedule_injective(outs: Any) -> te.Schedule:
    """Every injective producer inlined; each output over blocks and threads."""
    return schedule_outputs("cuda.schedule_injective", outs, bind_flat)


schedule_elemwise = schedule_injective
schedule_broadcast = schedule_injective


def bind_every_stage(s: te.Schedule, outs: list[te.Tensor]) -> te.Schedule:
    """The fallback: injective producers inlined, and every stage left (reductions included, each
    thread reducing its own elements, and the computes an extern reads) over blocks and threads."""
    stages: list[Any] = []
    read = read_by_other_ops(s)
    for op in [t.op for t in outs] + [st.op for st in s.stages if st.op in read and isinstance(st.op, ComputeOp)]:
        traverse_inline(s, op, lambda op: None if op in stages else stages.append(op))
    for op in stages:
        stage = s[op]
        if not stage.relations and stage.attach_type.name not in ("Inline", "InlinedAlready"):
            bind_flat(s, op.output(0), 64)
    return s


def fallback(name: str) -> Any:
    """The schedule *name* as :func:`bind_every_stage`."""
    def schedule(outs: Any, *args: Any) -> te.Schedule:
        s, tensors = new_schedule(f"cuda.{name}", outs)
        return bind_every_stage(s, tensors)
    schedule.__name__ = schedule.__qualname__ = name
    schedule.__doc__ = "Every stage over blocks and threads, injective producers inlined."
    return schedule
