"""TVM's x86 schedules of softmax, pooling and the simple stages around them: rows in parallel,
every stage of a row computed at the row; a pool's batch and channels fused in parallel, its
padding inlined."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.nn.softmax import softmax_stages
from topi.traverse import new_schedule, traverse_inline
from topi.utils import const_value
from topi.x86.injective import parallel_outer, schedule_injective_from_existing


def schedule_softmax(outs: Any) -> te.Schedule:
    """Softmax (and log_softmax): the axes before the softmax axis fused in parallel, the
    maximum, the exponentials and their sum computed at that loop, the last axis vectorized:
    the exponentials and the output in vectors of 16, the maximum and the sum in 16 lanes
    (factored, then the lanes combined) where 16 divides the axis."""
    s, tensors = new_schedule("x86.schedule_softmax", outs)
    out = tensors[0]
    if not out.op.tag.endswith("softmax_output"):
        raise te.ScheduleError(f"topi.x86.schedule_softmax: '{out.op.name}' is not a softmax output (tag "
                               f"'{out.op.tag}')")
    axis = int(out.op.attrs["axis"])
    stages = softmax_stages(out)
    outer = out.op.axis[:axis]
    if not outer:
        return s
    fused = s[out].fuse(*outer) if len(outer) > 1 else outer[0]
    s[out].parallel(fused)
    for t in stages:
        s[t].compute_at(s[out], fused)
    if axis == len(out.op.axis) - 1:
        s[out].vectorize(s[out].split(out.op.axis[-1], factor=16)[1])
        for t in stages:
            _vector_stage(s, t, fused)
    return s


def _vector_stage(s: te.Schedule, t: te.Tensor, at: Any) -> None:
    """A softmax stage along the last axis in vectors of 16: an element-wise one split, a
    reduction over an axis 16 divides factored into 16 lanes computed at *at*."""
    if not t.op.reduce_axis:
        if len(t.op.axis) == len(s[t].leaf_iter_vars):
            s[t].vectorize(s[t].split(t.op.axis[-1], factor=16)[1])
        return
    (k,) = t.op.reduce_axis
    if const_value(k.dom.extent) is None or const_value(k.dom.extent) % 16:
        return
    _, ki = s[t].split(k, factor=16)
    lanes = s.rfactor(t, ki, factor_axis=len(t.op.axis))
    s[lanes].compute_at(s[s.outputs[0].output(0)], at)
    *_, lane = s[lanes].op.axis
    (ko,) = s[lanes].op.reduce_axis
    s[lanes].reorder(ko, lane)
    s[lanes].vectorize(lane)


def schedule_pool(outs: Any, layout: str = "NCHW") -> te.Schedule:
    """Pooling: the padding inlined, the pool's leading axes in parallel (its last one, the
    channels of NHWC, vectorized); an average's division the same way, its sums at root."""
    s, tensors = new_schedule("x86.schedule_pool", outs)

    def visit(op: Any) -> None:
        if op.tag.startswith(("pool", "adaptive_pool")) and not s[op].relations:
            parallel_outer(s, op.output(0))
            if layout[-1] not in "DHWdhw" and not op.reduce_axis:
                s[op].vectorize(s[op].split(op.axis[-1], factor=16)[1])
    for t in tensors:
        traverse_inline(s, t.op, visit)
        if not s[t.op].relations:
            schedule_injective_from_existing(s, t)
    return s


def schedule_adaptive_pool(outs: Any) -> te.Schedule:
    """Adaptive and global pools, as :func:`schedule_pool`."""
    return schedule_pool(outs)


def schedule_lrn(outs: Any) -> te.Schedule:
    """lrn: the squared sums in parallel at root, the division as injective."""
    s, tensors = new_schedule("x86.schedule_lrn", outs)

    def visit(op: Any) -> None:
        if not s[op].relations and (op.reduce_axis or s[op].is_output):
            parallel_outer(s, op.output(0))
    for t in tensors:
        traverse_inline(s, t.op, visit)
    return s
