"""The annotations TVM's auto_scheduler gives a filled sketch before measuring it on a CPU
(its initial-population rules): the outer spatial loops of each stage computed at the root
fused and run in parallel, the innermost spatial loops fused and vectorized, and an
``auto_unroll_max_step`` pragma on the outermost loop of each reduction.

Each rule follows TVM's choices: parallel loops stop at a reduction, at an annotated loop, at
a loop other stages are computed in, or once they hold 16 iterations per core; vector loops
stop at the same loops, at a product of more than 16 lanes, and after one loop of a tiled
stage (its innermost two loops do not read memory contiguously); the unroll limit is drawn
from :data:`AUTO_UNROLL` (TVM's but 512, whose explicit unrolling takes a minute to compile).
"""

from __future__ import annotations

import random
from typing import Any

from tune.auto_scheduler.loop_state import INLINED, REDUCTION, ROOT, State

#: The unroll limits drawn for a reduction's outermost loop.
AUTO_UNROLL = (0, 16, 64)
#: Vector loops of more lanes are not made (TVM's default ``max_vectorize_size``).
MAX_VECTORIZE = 16


def _extent(it: Any) -> int:
    value = getattr(it.range.extent, "value", None) if it.range is not None else None
    return value if isinstance(value, int) else 1


def _computed(state: State, stage_id: int) -> bool:
    stage = state.stages[stage_id]
    return stage.op_type == 1 and stage.compute_at != INLINED


def _is_tiled(state: State, stage_id: int) -> bool:
    stage = state.stages[stage_id]
    return len(stage.iters) != len(stage.op.axis) + len(getattr(stage.op, "reduce_axis", ()))


def annotate_parallel(state: State, stage_id: int, first: int, num_cores: int) -> None:
    """Fuse and parallelize the outer spatial loops of stage *stage_id* from loop *first*;
    where the first of them already holds other stages, those stages' loops instead."""
    iters = state.stages[stage_id].iters
    to_fuse, degree, k = [], 1, first
    while k < len(iters):
        it = iters[k]
        if it.iter_kind == REDUCTION or it.annotation != 0:
            break
        to_fuse.append(it)
        degree *= _extent(it)
        if degree > num_cores * 16 or state.attached_stages(stage_id, k):
            break
        k += 1
    if degree == 1 and k < len(iters) and state.attached_stages(stage_id, k):
        for inner in state.attached_stages(stage_id, k):
            annotate_parallel(state, inner, 0, num_cores)
        annotate_parallel(state, stage_id, k + 1, num_cores)
    if degree == 1:
        return
    state.parallel(stage_id, to_fuse[0] if len(to_fuse) == 1 else state.fuse(stage_id, to_fuse))


def annotate_vectorize(state: State, stage_id: int, rng: random.Random, max_lanes: int = MAX_VECTORIZE) -> None:
    """Fuse some of the innermost spatial loops of stage *stage_id* (at most *max_lanes*
    iterations together) and vectorize them."""
    iters = state.stages[stage_id].iters
    lanes, count = 1, 0
    while count < len(iters):
        k = len(iters) - 1 - count
        it = iters[k]
        if state.attached_stages(stage_id, k) or it.iter_kind == REDUCTION or it.annotation != 0:
            break
        if _is_tiled(state, stage_id) and count:
            break
        lanes *= _extent(it)
        if lanes > max_lanes:
            break
        count += 1
    if count > 1:
        count = 1 + rng.randrange(count - 1)
    if count == 1:
        state.vectorize(stage_id, iters[-1])
    elif count > 1:
        state.vectorize(stage_id, state.fuse(stage_id, list(iters[-count:])))


def annotate(state: State, num_cores: int, rng: random.Random, max_lanes: int = MAX_VECTORIZE) -> State:
    """*state* (filled, its ranges known) with TVM's parallel, unroll and vector annotations."""
    for sid in range(len(state.stages)):
        if _computed(state, sid) and state.stages[sid].compute_at == ROOT:
            annotate_parallel(state, sid, 0, num_cores)
    for sid in range(len(state.stages)):
        stage = state.stages[sid]
        if _computed(state, sid) and any(it.iter_kind == REDUCTION for it in stage.iters):
            state.pragma(sid, stage.iters[0], f"auto_unroll_max_step${rng.choice(AUTO_UNROLL)}")
    for sid in range(len(state.stages)):
        if _computed(state, sid):
            annotate_vectorize(state, sid, rng, max_lanes)
    return state


__all__ = ["AUTO_UNROLL", "MAX_VECTORIZE", "annotate", "annotate_parallel", "annotate_vectorize"]
