"""A stage's executions: the loops around it, the region it realizes in each, counted.

A stage deep in a compute_at chain runs a number of times exponential in the chain's depth;
:mod:`bound.report.nest_walk` counts those runs by the distinct values its region depends on, so
these counts cost what InferBound costs. Thread loops across which the stage's storage is
shared do not multiply the work: those threads compute the region together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from bound.inference.exact import visits_exact_set
from bound.inference.infer import GraphContext, NamedBounds, scope_rank_of
from bound.inference.thread_scope import need_relax
from bound.report.nest_walk import NestWalk, walk
from schedule import arith
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import free_vars, substitute
from schedule.ir.itervar import IterVar, Range
from schedule.schedule.stage import Stage


@dataclass
class StageNest:
    """Points of a stage's executions: loops (counted), shared loops (not counted), region.

    Ranges may use exact mode's named bounds; *lets* defines each one they use (directly or
    through another definition).
    """

    loops: list[tuple[Var, Range]]
    shared: list[tuple[Var, Range]]
    region: list[tuple[Var, Range]]  # root variables and their realized ranges
    domains: list[Range | None]  # each root's domain, where the region may leave it
    lets: dict[Var, Expr]


def stage_nest(stage: Stage, ctx: GraphContext, bounds: NamedBounds,
                roots: Sequence[IterVar], shared_only: bool) -> StageNest:
    """*stage*'s attach loops and the region of *roots* it realizes at each iteration.

    With *shared_only*, thread loops across which the stage's storage is shared are set apart
    (they do not repeat the work); otherwise every loop counts as a loop.
    """
    rank = scope_rank_of(stage, ctx)
    to_loop_var: dict[Var, Expr] = {}
    loops, shared = [], []
    ranges = bounds.ranges
    for iv in reversed(ctx.attach_path[stage]):
        thread = ctx.bind_map.get(iv)
        if thread is not None:
            to_loop_var[thread.var] = iv.var
        relaxed = shared_only and bool(ctx.tag(iv)) and need_relax(ctx.tag(iv), True, rank)
        (shared if relaxed else loops).append((iv.var, ranges[iv]))

    def own(e: Expr) -> Expr:
        return substitute(e, to_loop_var) if to_loop_var else e

    def own_range(r: Range) -> Range:
        return Range.from_min_extent(own(r.min), own(r.extent))
    region = [(iv.var, own_range(ranges[iv])) for iv in roots]
    loops = [(v, own_range(r)) for v, r in loops]
    shared = [(v, own_range(r)) for v, r in shared]
    used = [e for _, r in [*loops, *shared, *region] for e in (r.min, r.extent)]
    lets = {v: own(d) for v, d in _lets(used, bounds).items()}
    return StageNest(loops, shared, region, [iv.dom for iv in roots], lets)


def _lets(exprs: Sequence[Expr], bounds: NamedBounds) -> dict[Var, Expr]:
    """The named bounds *exprs* use, directly or through definitions, with their definitions."""
    definitions = bounds.definitions
    out: dict[Var, Expr] = {}
    pending = [v for v in free_vars(exprs) if v in definitions]
    while pending:
        v = pending.pop()
        if v in out:
            continue
        out[v] = definitions[v]
        pending.extend(w for w in bounds.inputs(v) if w in definitions and w not in out)
    return out


# -- counting --------------------------------------------------------------------------------

def region_exprs(nest: StageNest) -> list[Expr]:
    return [e for _, r in nest.region for e in (r.min, r.extent)]


def clipped_boxes(w: NestWalk, nest: StageNest) -> tuple[np.ndarray, np.ndarray]:
    """Per state, the realized region inside the roots' domains: ``(lo, hi)``, ``[states, dims]``."""
    values = w.evaluate(region_exprs(nest))
    lo = np.stack([values[2 * d] for d in range(len(nest.region))], axis=1).reshape(w.size, -1)
    hi = lo + np.stack([values[2 * d + 1] for d in range(len(nest.region))], axis=1).reshape(w.size, -1)
    for d, dom in enumerate(nest.domains):
        if dom is not None:
            dlo = arith.value_of(dom.min)
            lo[:, d] = np.maximum(lo[:, d], dlo)
            hi[:, d] = np.minimum(hi[:, d], dlo + arith.value_of(dom.extent))
    return lo, np.maximum(hi, lo)


def count_shared(nest: StageNest) -> int:
    """Points (loop iteration, region point) over the counted loops; threads that share the
    storage (:attr:`StageNest.shared`) compute the union of their regions once."""
    group = Var("execution")
    w = walk([*nest.loops, *nest.shared], nest.lets, region_exprs(nest), (len(nest.loops), group))
    lo, hi = clipped_boxes(w, nest)
    ids = w.values_of(group)
    total = 0
    for g in np.unique(ids):
        rows = ids == g
        total += int(w.group_weight[g]) * _union_volume(lo[rows], hi[rows])
    return total


@dataclass
class Run:
    """A stage's executions: distinct states with their multiplicities, and the region of
    every root (reductions too) realized in each, unclipped and inside the domains."""

    nest: StageNest
    weight: np.ndarray
    extents: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    #: per state, the points computed where the stage visits its exact set, not its box
    points: list[np.ndarray] | None = None

    def allocated_and_computed(self, ndim: int) -> tuple[int, int]:
        """Over the first *ndim* roots (the data axes)."""
        allocated = math.prod(max(int(self.extents[:, d].max(initial=0)), 0) for d in range(ndim))
        if self.points is not None:
            volume = np.array([len(p) for p in self.points], dtype=np.int64)
        else:
            volume = np.prod(self.hi[:, :ndim] - self.lo[:, :ndim], axis=1)
        return allocated, int(sum((self.weight * volume).tolist()))


class Executions:
    """Each stage's :class:`Run`, walked once for its own row and its producers' rows."""

    def __init__(self, ctx: GraphContext, bounds: NamedBounds, stages: Sequence[Stage]) -> None:
        self._ctx, self._bounds, self._stages = ctx, bounds, stages
        self._runs: dict[Stage, Run] = {}

    def of(self, stage: Stage) -> Run:
        run = self._runs.get(stage)
        if run is None:
            nest = stage_nest(stage, self._ctx, self._bounds, stage.op.root_iter_vars, shared_only=False)
            exact = (self._bounds.regions or {}).get(stage)
            if exact is not None and not visits_exact_set(stage, self._stages, self._bounds.ranges):
                exact = None
            params = [exact.region.names.var(n) for n in exact.region.param_names] if exact is not None else []
            w = walk(nest.loops, nest.lets, [*region_exprs(nest), *params])
            extents = w.evaluate([r.extent for _, r in nest.region])
            lo, hi = clipped_boxes(w, nest)
            run = self._runs[stage] = Run(nest, w.weight, np.stack(extents, axis=1).reshape(w.size, -1), lo, hi)
            if exact is not None:
                values = [v.tolist() for v in w.evaluate(params)]
                names = exact.region.param_names
                run.points = [np.array(exact.region.points_at(dict(zip(names, (int(c[k]) for c in values)))),
                                       dtype=np.int64).reshape(-1, len(nest.region)) for k in range(w.size)]
        return run


def _union_volume(lo: np.ndarray, hi: np.ndarray) -> int:
    boxes = np.unique(np.concatenate([lo, hi], axis=1), axis=0)
    if len(boxes) == 1:
        return int(np.prod(boxes[0, lo.shape[1]:] - boxes[0, :lo.shape[1]]))
    return len(_points(boxes[:, :lo.shape[1]], boxes[:, lo.shape[1]:]))


def _points(lo: np.ndarray, hi: np.ndarray) -> set[tuple[int, ...]]:
    out: set[tuple[int, ...]] = set()
    for a, b in zip(lo.tolist(), hi.tolist()):
        out.update(product(*(range(x, y) for x, y in zip(a, b))))
    return out


def max_extents_shared(nest: StageNest) -> list[int]:
    """The largest realized extent of each region dimension over the executions."""
    extents = [r.extent for _, r in nest.region]
    w = walk([*nest.loops, *nest.shared], nest.lets, extents)
    return [max(int(values.max(initial=0)), 0) for values in w.evaluate(extents)]
