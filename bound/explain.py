"""Why a schedule recomputes: per stage, the elements it allocates, computes and is asked for.

Counts come from the inferred bounds, never from running the schedule. A stage's executions
are the iterations of the loops enclosing it (its attach path); at each, it produces the
points of its realized box inside its shape (lowering guards the rest off). Thread loops across which its storage
is shared do not multiply the work: those threads compute the region together. Sets are
counted with isl where the bounds are quasi-affine and enumerated otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import product

from bound.access import Access, reads
from bound.errors import NonAffineError
from bound.infer import GraphContext, infer_normalized, scope_rank_of
from bound.isl_bridge import Builder, IslNames, IslSet
from bound.thread_scope import need_relax
from schedule import arith
from schedule.checks import check_flag, check_schedule
from schedule.evaluate import evaluate
from schedule.expr import Expr, IntImm, ProducerLoad, Var
from schedule.functor import post_order_visit, substitute
from schedule.itervar import IterVar, Range
from schedule.schedule import Schedule
from schedule.stage import AttachType, Stage
from schedule.tensor import ComputeOp, PlaceholderOp, Tensor


@dataclass(frozen=True)
class StageReport:
    """Element counts of one tensor (see :func:`explain`)."""

    name: str
    allocated: int
    computed: int
    needed: int

    @property
    def ratio(self) -> float:
        """``computed / needed``: 1 means no element is computed twice or in vain."""
        if self.needed:
            return self.computed / self.needed
        return math.inf if self.computed else 1.0


class BoundReport(Mapping[Tensor, StageReport]):
    """One :class:`StageReport` per computed tensor, in stage order; ``str()`` is a table."""

    def __init__(self, rows: dict[Tensor, StageReport], exact: bool,
                 aliases: Mapping[Tensor, Tensor] | None = None) -> None:
        self._rows = rows
        self.exact = exact
        self._aliases = dict(aliases or {})  # a stage's current outputs -> the tensors the user holds

    def __getitem__(self, tensor: Tensor) -> StageReport:
        try:
            return self._rows[self._aliases.get(tensor, tensor)]
        except KeyError:
            raise KeyError(f"no report for {tensor!r}: placeholders and inlined stages compute "
                           "nothing") from None

    def __iter__(self) -> Iterator[Tensor]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __str__(self) -> str:
        header = ("tensor", "allocated", "computed", "needed", "computed/needed")
        body = [(r.name, str(r.allocated), str(r.computed), str(r.needed), f"{r.ratio:.2f}")
                for r in self._rows.values()]
        widths = [max(len(row[k]) for row in [header, *body]) for k in range(len(header))]
        lines = [f"bounds: {'exact' if self.exact else 'faithful'}"]
        for row in [header, *body]:
            cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines)


def explain(sch: Schedule, *, exact: bool = True) -> BoundReport:
    """Elements allocated, computed and needed for every computed tensor of *sch*.

    ``allocated`` is the buffer a tight allocation needs: the product of each dimension's
    largest realized extent (``lower`` may allocate more where an extent has no constant
    bound it can prove). ``computed`` sums, over every execution of its attach loops, the points it
    produces; ``needed`` counts the distinct elements its consumers read (all of them for an
    output). A ratio above 1 is recomputation or over-approximation.

    :raises ValueError: if a shape is symbolic (counts need concrete sizes).
    :raises TypeError: if *sch* is not a Schedule or *exact* not a bool.
    """
    check_schedule("explain", sch)
    check_flag("explain", "exact", exact)
    s = sch.normalize()
    bounds = infer_normalized(s, exact=exact)
    ctx = GraphContext.of(s)
    names = IslNames()
    rows: dict[Tensor, StageReport] = {}
    # Rows are keyed by the tensors the user holds (a cache_write rebuilds its stage's op).
    user_tensor: dict[Tensor, Tensor] = {}
    aliases: dict[Tensor, Tensor] = {}
    for original, stage in zip(sch.stages, s.stages):
        for k in range(stage.op.num_outputs):
            user_tensor[stage.op.output(k)] = original.origin_op.output(k)
            aliases[original.op.output(k)] = original.origin_op.output(k)
    for stage in s.stages:
        if isinstance(stage.op, PlaceholderOp) or stage.attach_type == AttachType.InlinedAlready:
            continue
        tensors = [stage.op.output(k) for k in range(stage.op.num_outputs)]
        for t in tensors:
            _require_concrete(t)
        if isinstance(stage.op, ComputeOp):
            nest = _stage_nest(stage, ctx, bounds, stage.op.axis, shared_only=True)
            allocated = math.prod(_max_extents(nest, names))
            computed = _count(nest, names)
        else:
            allocated = computed = _size(tensors[0])
        for t in tensors:
            needed = _size(t) if stage.is_output else _needed(t, ctx, bounds, names)
            rows[user_tensor[t]] = StageReport(t.name, allocated, computed, needed)
    return BoundReport(rows, exact, aliases)


def _require_concrete(t: Tensor) -> None:
    for d, extent in enumerate(t.shape):
        if not isinstance(extent, IntImm):
            raise ValueError(f"explain: tensor '{t.name}' has a symbolic extent {extent} in "
                             f"dimension {d}; counts need concrete shapes")


def _size(t: Tensor) -> int:
    return math.prod(arith.value_of(e) for e in t.shape)


@dataclass
class _Nest:
    """Points of a stage's executions: loops (counted), shared loops (not counted), region."""

    loops: list[tuple[Var, Range]]
    shared: list[tuple[Var, Range]]
    region: list[tuple[Var, Range]]  # root variables and their realized ranges
    domains: list[Range | None]  # each root's domain, where the region may leave it

    def dims(self) -> list[tuple[Var, Range]]:
        return [*self.loops, *self.shared, *self.region]

    def conditions(self) -> list[Expr]:
        out = [_in_range(v, r) for v, r in self.dims()]
        return out + [_in_range(v, d) for (v, _), d in zip(self.region, self.domains) if d is not None]


def _in_range(v: Expr, r: Range) -> Expr:
    return arith.logical_and(arith.ge(v, r.min), arith.lt(v, arith.add(r.min, r.extent)))


def _stage_nest(stage: Stage, ctx: GraphContext, bounds: Mapping[IterVar, Range],
                roots: Sequence[IterVar], shared_only: bool) -> _Nest:
    """*stage*'s attach loops and the region of *roots* it realizes at each iteration.

    With *shared_only*, thread loops across which the stage's storage is shared are set apart
    (they do not repeat the work); otherwise every loop counts as a loop.
    """
    rank = scope_rank_of(stage, ctx)
    to_loop_var: dict[Var, Expr] = {}
    loops, shared = [], []
    for iv in reversed(ctx.attach_path[stage]):
        thread = ctx.bind_map.get(iv)
        if thread is not None:
            to_loop_var[thread.var] = iv.var
        relaxed = shared_only and bool(ctx.tag(iv)) and need_relax(ctx.tag(iv), True, rank)
        (shared if relaxed else loops).append((iv.var, bounds[iv]))

    def own(r: Range) -> Range:
        return Range.from_min_extent(substitute(r.min, to_loop_var), substitute(r.extent, to_loop_var))
    return _Nest([(v, own(r)) for v, r in loops], [(v, own(r)) for v, r in shared],
                 [(iv.var, own(bounds[iv])) for iv in roots], [iv.dom for iv in roots])


# -- counting --------------------------------------------------------------------------------

def _builder(nest: _Nest, names: IslNames, extra: Sequence[str] = ()) -> Builder:
    return Builder(names, [*(names[v] for v, _ in nest.dims()), *extra], [])


def _count(nest: _Nest, names: IslNames) -> int:
    """Points (loop iteration, region point) over the counted loops."""
    try:
        points = _builder(nest, names).where(nest.conditions())
        keep = [names[v] for v, _ in [*nest.loops, *nest.region]]
        return points.project_onto(keep).count()
    except NonAffineError:
        seen = {(*(env[v] for v, _ in nest.loops), *point) for env, point in _enumerate(nest)}
        return len(seen)


def _max_extents(nest: _Nest, names: IslNames) -> list[int]:
    """The largest realized extent of each region dimension over the executions."""
    out = []
    loops_only = _Nest(nest.loops, nest.shared, [], [])
    for _, r in nest.region:
        try:
            name = names.fresh("extent")
            b = _builder(loops_only, names, [name])
            s = b.where(loops_only.conditions(), [(name, r.extent)]).project_onto([name])
            out.append(max(s.max_of(name) or 0, 0))
        except NonAffineError:
            envs = _loop_envs(loops_only.dims(), {})
            out.append(max((evaluate(r.extent, env) for env in envs), default=0))
    return out


def _needed(t: Tensor, ctx: GraphContext, bounds: Mapping[IterVar, Range], names: IslNames) -> int:
    """Distinct elements of *t* that its consumers read over all their executions.

    A read whose index depends on data, or an extern consumer, may touch any element: the
    whole tensor counts.
    """
    region: IslSet | None = None
    seen: set[tuple[int, ...]] = set()
    for op in ctx.feed.get(t, []):
        if not isinstance(op, ComputeOp):
            return _size(t)
        nest = _stage_nest(ctx.stage_of[op], ctx, bounds, op.root_iter_vars, shared_only=False)
        for acc in reads(op, [t]):
            if _loads_data(acc):
                return _size(t)
            try:
                dims = [names.fresh(f"a{d}") for d in range(len(acc.indices))]
                b = _builder(nest, names, dims)
                part = b.where([*nest.conditions(), acc.condition], list(zip(dims, acc.indices)))
                part = part.project_onto(dims).renamed([f"a{d}" for d in range(len(dims))])
                region = part if region is None else region.union(part)
            except NonAffineError:
                seen.update(_enumerated_reads(nest, acc))
    if not seen:
        return region.count() if region is not None else 0
    return len(seen | (region.points() if region is not None else set()))


def _loads_data(acc: Access) -> bool:
    found = []
    for e in (*acc.indices, acc.condition):
        post_order_visit(e, lambda x: found.append(x) if isinstance(x, ProducerLoad) else None)
    return bool(found)


def _enumerated_reads(nest: _Nest, acc: Access) -> Iterator[tuple[int, ...]]:
    for env, _ in _enumerate(nest):
        if evaluate(acc.condition, env):
            yield tuple(evaluate(i, env) for i in acc.indices)


def _enumerate(nest: _Nest) -> Iterator[tuple[dict, tuple[int, ...]]]:
    """Every (environment, region point) of the nest, by brute force."""
    for env in _loop_envs([*nest.loops, *nest.shared], {}):
        ranges = []
        for (_, r), dom in zip(nest.region, nest.domains):
            lo, hi = _bounds(r, env)
            if dom is not None:
                dlo, dhi = _bounds(dom, env)
                lo, hi = max(lo, dlo), min(hi, dhi)
            ranges.append(range(lo, hi))
        for point in product(*ranges):
            full = {**env, **{v: x for (v, _), x in zip(nest.region, point)}}
            yield full, point


def _bounds(r: Range, env: Mapping[Var, int]) -> tuple[int, int]:
    lo = evaluate(r.min, env)
    return lo, lo + evaluate(r.extent, env)


def _loop_envs(loops: Sequence[tuple[Var, Range]], env: dict) -> Iterator[dict]:
    if not loops:
        yield dict(env)
        return
    (v, r), rest = loops[0], loops[1:]
    for x in range(*_bounds(r, env)):
        env[v] = x
        yield from _loop_envs(rest, env)
    env.pop(v, None)
