"""TVM's CUDA schedules of reductions and softmax: each reduction factored over 32 threads
(``threadIdx.x``, combined across them), the rows over ``threadIdx.y`` and blocks, one thread
of each row storing."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.cuda.injective import bind_every_stage, bind_flat
from topi.nn.softmax import softmax_stages
from topi.transform.shape import product
from topi.traverse import new_schedule, traverse_inline


def cross_thread(s: te.Schedule, red: Any, out: te.Tensor, threads: int = 32) -> None:
    """Reduction *red* (an operation, computed for output *out*: itself or an injective consumer)
    factored over *threads* threads along ``threadIdx.x``, the output elements over
    ``threadIdx.y`` and ``blockIdx.x``."""
    tx, ty = te.thread_axis((0, threads), "threadIdx.x"), te.thread_axis((0, threads), "threadIdx.y")
    data = red.output(0)
    axes = s[red].op.reduce_axis
    _, ki = s[red].split(s[red].fuse(*axes) if len(axes) > 1 else axes[0], factor=threads)
    rf = s.rfactor(data, ki)
    rf = rf[0] if isinstance(rf, list) else rf
    s[red].bind(s[red].op.reduce_axis[0], tx)
    s[rf].compute_at(s[red], s[red].op.reduce_axis[0])
    guards = [tx.var.equal(0)]
    if s[out].op.axis:
        outer, inner = s[out].split(s[out].fuse(*s[out].op.axis) if len(s[out].op.axis) > 1 else
                                    s[out].op.axis[0], factor=threads)
        s[out].bind(inner, ty)
        s[out].bind(outer, te.thread_axis("blockIdx.x"))
        guards.append(outer * threads + inner < product(out.shape))
        if red != out.op:
            s[red].compute_at(s[out], inner)
    s[out].set_store_predicate(te.all(*guards))


def schedule_reduce(outs: Any) -> te.Schedule:
    """Each reduction across threads (see the module); other outputs over blocks and threads."""
    s, tensors = new_schedule("cuda.schedule_reduce", outs)
    for t in tensors:
        reductions = _reductions(s, t)
        if reductions and not s[reductions[0]].relations:
            cross_thread(s, reductions[0], t)
        elif not s[t.op].relations:
            bind_flat(s, t)
    return s


def _reductions(s: te.Schedule, out: te.Tensor) -> list[Any]:
    """The reductions *out* reads (itself first), every injective stage not an output inlined."""
    found: list[Any] = []
    traverse_inline(s, out.op, lambda op: found.append(op) if op.reduce_axis else None)
    return found


def schedule_softmax(outs: Any) -> te.Schedule:
    """Softmax over the last axis: one block per row, its maximum and sum across 16 threads,
    the exponentials and the output split over the same threads; another axis falls back to
    every stage over blocks and threads."""
    s, tensors = new_schedule("cuda.schedule_softmax", outs)
    out = tensors[0]
    if not out.op.tag.endswith("softmax_output"):
        raise te.ScheduleError(f"topi.cuda.schedule_softmax: '{out.op.name}' is not a softmax output (tag "
                               f"'{out.op.tag}')")
    if int(out.op.attrs["axis"]) != len(out.shape) - 1 or len(out.shape) != 2:
        return bind_every_stage(s, tensors)
    threads = 16
    bx, tx = te.thread_axis("blockIdx.x"), te.thread_axis((0, threads), "threadIdx.x")
    stages = {t.op.name: t for t in softmax_stages(out)}
    for name in ("T_softmax_maxelem", "T_softmax_expsum"):
        red = stages[name]
        _, ki = s[red].split(s[red].op.reduce_axis[0], factor=threads)
        rf = s.rfactor(red, ki)
        s[red].bind(s[red].op.axis[0], bx)
        s[red].bind(s[red].op.reduce_axis[0], tx)
        s[rf].compute_at(s[red], s[red].op.reduce_axis[0])
        s[red].set_store_predicate(tx.var.equal(0))
    for t in [stages[n] for n in ("T_softmax_exp",) if n in stages] + [out]:
        s[t].bind(s[t].op.axis[0], bx)
        s[t].bind(s[t].split(s[t].op.axis[1], nparts=threads)[0], tx)
    return s
