"""TVM's x86 schedules of injective and reduction operators: the leading axes fused and run in
parallel, the last one split by 16 and vectorized (injective); a reduction's spatial axes the
same way, its producers inlined."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi import tag
from topi.traverse import new_schedule, schedule_outputs, traverse_inline


def parallel_outer(sch: te.Schedule, out: te.Tensor) -> Any:
    """Fuse the leading axes of *out* (three of five or more, two of three or four, else the
    first) and run them in parallel; the fused loop, or None for a scalar."""
    axes = sch[out].op.axis
    if not axes:
        return None
    lead = axes[:3] if len(axes) >= 5 else axes[:2] if len(axes) >= 3 else axes[:1]
    fused = sch[out].fuse(*lead) if len(lead) > 1 else lead[0]
    sch[out].parallel(fused)
    return fused


def schedule_injective_from_existing(sch: te.Schedule, out: te.Tensor) -> te.Schedule:
    """In *sch*: *out*'s leading axes in parallel, its last axis split by 16 and vectorized."""
    axes = sch[out].op.axis
    fused = parallel_outer(sch, out)
    if axes:
        outer, inner = sch[out].split(axes[-1], factor=16)
        sch[out].vectorize(inner)
        if len(axes) == 1 and fused is not None:
            sch[out].parallel(outer)  # the split broke the parallel axis: the outer part is
    return sch


def schedule_remaining_outputs(sch: te.Schedule, outs: list[te.Tensor]) -> te.Schedule:
    """In *sch*: each of *outs* no schedule has split or fused yet, scheduled as injective (the
    epilogue after an operator's own schedule)."""
    for t in outs:
        if not sch[t.op].relations:
            schedule_injective_from_existing(sch, t)
    return sch


def schedule_injective(outs: Any) -> te.Schedule:
    """Every injective producer inlined; each output scheduled as above."""
    return schedule_outputs("x86.schedule_injective", outs, schedule_injective_from_existing)


schedule_elemwise = schedule_injective
schedule_broadcast = schedule_injective


def schedule_reduce(outs: Any) -> te.Schedule:
    """Each reduction's spatial axes in parallel (an index reduction's both outputs at once);
    injective producers inlined; an injective output after a reduction scheduled as injective."""
    s, tensors = new_schedule("x86.schedule_reduce", outs)

    def visit(op: Any) -> None:
        if op.reduce_axis and not s[op].relations:
            parallel_outer(s, op.output(0))
        elif tag.is_injective(op.tag) and s[op].is_output and not s[op].relations:
            schedule_injective_from_existing(s, op.output(0))
    for t in tensors:
        traverse_inline(s, t.op, visit)
    return s


#: Batch normalization's outputs (the normalized data, the moving statistics), its batch
#: statistics' reductions in training: scheduled as reductions with injective outputs.
schedule_batch_norm = schedule_reduce
