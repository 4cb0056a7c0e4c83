"""Why a schedule recomputes: per stage, the elements it allocates, computes and is asked for.

Counts come from the inferred bounds, never from running the schedule. A stage's executions
are the iterations of the loops enclosing it (its attach path); at each, it produces the
points of its realized box inside its shape (lowering guards the rest off). Thread loops across which its storage
is shared do not multiply the work: those threads compute the region together. Sets are
counted with isl where the bounds are quasi-affine and enumerated otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import product

import numpy as np

from bound.arith.linear import Linear
from bound.errors import NonAffineError
from bound.inference.infer import GraphContext, infer_named
from bound.isl import Builder, IslNames, IslSet
from bound.operation.access import Access
from bound.operation.registry import bounds_of, reads
from bound.report.executions import Executions, StageNest, count_shared, max_extents_shared, stage_nest
from bound.report.vector_eval import evaluate_columns
from schedule import arith
from schedule.base.pass_context import default_exact
from schedule.ir.evaluate import evaluate
from schedule.ir.expr import IntImm, ProducerLoad, Var
from schedule.ir.functor import post_order_visit
from schedule.ir.itervar import Range
from schedule.operation.tensor import Tensor
from schedule.schedule.schedule import Schedule, check_schedule
from schedule.schedule.stage import AttachType


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


def explain(sch: Schedule, *, exact: bool | None = None) -> BoundReport:
    """Elements allocated, computed and needed for every computed tensor of *sch*.

    ``allocated`` is the buffer a tight allocation needs: the product of each dimension's
    largest realized extent (``lower`` may allocate more where an extent has no constant
    bound it can prove). ``computed`` sums, over every execution of its attach loops, the points it
    produces; ``needed`` counts the distinct elements its consumers read (all of them for an
    output). A ratio above 1 is recomputation or over-approximation. A tensor stored in another
    operation's output (a scan's init and update) allocates nothing of its own.

    :raises ValueError: if a shape is symbolic (counts need concrete sizes).
    :raises TypeError: if *sch* is not a Schedule or *exact* not a bool.
    """
    check_schedule("explain", sch)
    exact = default_exact("explain", exact)
    s = sch.normalize()
    bounds = infer_named(s, exact=exact)
    ctx = GraphContext.of(s)
    names = IslNames()
    runs = Executions(ctx, bounds, s.stages)
    rows: dict[Tensor, StageReport] = {}
    # Rows are keyed by the tensors the user holds (a cache_write rebuilds its stage's op).
    user_tensor: dict[Tensor, Tensor] = {}
    aliases: dict[Tensor, Tensor] = {}
    for original, stage in zip(sch.stages, s.stages):
        for k in range(stage.op.num_outputs):
            user_tensor[stage.op.output(k)] = original.origin_op.output(k)
            aliases[original.op.output(k)] = original.origin_op.output(k)
    stored_elsewhere = {t for st in s.stages for t in st.op.aliases()}
    for stage in s.stages:
        kind = bounds_of(stage.op)
        if kind.is_input(stage.op) or stage.attach_type == AttachType.InlinedAlready:
            continue
        tensors = [stage.op.output(k) for k in range(stage.op.num_outputs)]
        for t in tensors:
            _require_concrete(t)
        axes = kind.region_axes(stage.op)
        if axes:
            nest = stage_nest(stage, ctx, bounds, axes, shared_only=True)
            if nest.shared:
                allocated, computed = math.prod(max_extents_shared(nest)), count_shared(nest)
            else:
                allocated, computed = runs.of(stage).allocated_and_computed(len(axes))
        else:  # computed whole
            allocated = computed = _size(tensors[0])
        for t in tensors:
            needed = _size(t) if stage.is_output else _needed(t, ctx, runs, names)
            own = 0 if t in stored_elsewhere else allocated
            rows[user_tensor[t]] = StageReport(t.name, own, computed, needed)
    return BoundReport(rows, exact, aliases)


def _require_concrete(t: Tensor) -> None:
    for d, extent in enumerate(t.shape):
        if not isinstance(extent, IntImm):
            raise ValueError(f"explain: tensor '{t.name}' has a symbolic extent {extent} in "
                             f"dimension {d}; counts need concrete shapes")


def _size(t: Tensor) -> int:
    return math.prod(arith.value_of(e) for e in t.shape)


# A consumer's reads are painted point by point over the boxes it realizes when its domain is
# small, or when it realizes many boxes in a domain not too large; otherwise affine reads are
# painted once per box shape and moved to each box's corner, when that paints fewer points than
# isl would take boxes; the rest are taken with isl from each distinct box (about 0.3 ms each).
_SMALL_DOMAIN = 1 << 16
_FEW_BOXES = 64
_BITMAP_LIMIT = 1 << 22
_TRANSLATED_LIMIT = 1 << 22
_POINTS_PER_BOX = 1 << 10


def _needed(t: Tensor, ctx: GraphContext, runs: Executions, names: IslNames) -> int:
    """Distinct elements of *t* that its consumers read over all their executions.

    A read whose index depends on data, or an extern consumer, may touch any element: the
    whole tensor counts.
    """
    shape = tuple(arith.value_of(e) for e in t.shape)
    inside = np.zeros(shape, dtype=bool)
    outside: set[tuple[int, ...]] = set()  # indices a read takes outside the tensor
    deferred: list[tuple[list[Var], np.ndarray, np.ndarray, Access]] = []  # reads left to isl
    for op in ctx.feed.get(t, []):
        kind = bounds_of(op)
        if kind.reads_whole(op, [t]):
            return _size(t)
        accesses = reads(op, [t])
        if any(_loads_data(acc) for acc in accesses):
            return _size(t)
        if not accesses:
            continue
        run = runs.of(ctx.stage_of[op])
        nest, lo, hi = run.nest, run.lo, run.hi
        boxes = np.unique(np.concatenate([lo, hi], axis=1), axis=0)
        lo, hi = boxes[:, :len(nest.region)], boxes[:, len(nest.region):]
        roots = [v for v, _ in nest.region]
        points = math.prod(_domain_extents(nest))
        if run.points is not None or points <= _SMALL_DOMAIN or (len(lo) > _FEW_BOXES and points <= _BITMAP_LIMIT):
            if run.points is not None:  # the consumer visits its exact set, not its box
                visited = np.unique(np.concatenate([*run.points, np.zeros((0, len(roots)), np.int64)]), axis=0)
                env, size = {v: visited[:, d] for d, v in enumerate(roots)}, len(visited)
            else:
                env, size = _painted_points(roots, _domain_extents(nest), nest.domains, lo, hi)
            for acc in accesses:
                values = evaluate_columns([acc.condition, *acc.indices], env, size)
                keep = values[0].astype(bool)
                _paint(np.stack([v[keep] for v in values[1:]], axis=1).reshape(-1, len(acc.indices)), inside, outside)
            continue
        deferred += [(roots, lo, hi, acc) for acc in accesses]
    # moved reads where they cost fewer points than isl would take boxes; all that fit the limit
    # once a bitmap exists (isl's sets would be enumerated to join it)
    deferred = _paint_moved(deferred, inside, outside, lambda lo: max(_SMALL_DOMAIN, len(lo) * _POINTS_PER_BOX))
    if deferred and (inside.any() or outside):
        deferred = _paint_moved(deferred, inside, outside, lambda lo: _TRANSLATED_LIMIT)
    if deferred:
        region = _isl_reads(*deferred[0], names)
        for roots, lo, hi, acc in deferred[1:]:
            region = region.union(_isl_reads(roots, lo, hi, acc, names))
        if not inside.any() and not outside:
            return region.count()
        points = region.points()
        inside[tuple(np.array([p for p in points if all(0 <= x < n for x, n in zip(p, shape))]).T)] = True
        outside |= {p for p in points if not all(0 <= x < n for x, n in zip(p, shape))}
    return int(inside.sum()) + len(outside)


def _paint(index: np.ndarray, inside: np.ndarray, outside: set[tuple[int, ...]]) -> None:
    """Mark the rows of *index* in the tensor's bitmap *inside*, or in *outside* beyond it."""
    ok = np.all((index >= 0) & (index < np.array(inside.shape)), axis=1)
    inside[tuple(index[ok].T)] = True
    outside.update(map(tuple, index[~ok].tolist()))


def _paint_moved(reads: list[tuple[list[Var], np.ndarray, np.ndarray, Access]], inside: np.ndarray,
                 outside: set[tuple[int, ...]], budget: Callable[[np.ndarray], int]
                 ) -> list[tuple[list[Var], np.ndarray, np.ndarray, Access]]:
    """Paints each of *reads* that :func:`_translated_reads` takes within ``budget(lo)``
    points; returns the others."""
    left = []
    for roots, lo, hi, acc in reads:
        index = _translated_reads(roots, lo, hi, acc, budget(lo))
        if index is None:
            left.append((roots, lo, hi, acc))
        else:
            _paint(index, inside, outside)
    return left


def _translated_reads(roots: list[Var], lo: np.ndarray, hi: np.ndarray, acc: Access,
                      budget: int) -> np.ndarray | None:
    """The indices *acc* reads at the points of the boxes ``[lo, hi)``, as rows, when its
    condition is constant and its indices are affine in the roots: the reads of a box are then
    those of a box of its shape at the origin moved by the index of its corner, so each shape's
    reads are enumerated once. None when that does not hold, or would paint more than *budget*
    points (at most :data:`_TRANSLATED_LIMIT`)."""
    condition = arith.value_of(acc.condition)
    affine = _affine(roots, acc.indices)
    if not isinstance(condition, (bool, int)) or affine is None:
        return None
    matrix, const = affine
    if not condition:
        return np.zeros((0, len(acc.indices)), dtype=np.int64)
    nonempty = np.all(hi > lo, axis=1)
    lo = lo[nonempty]
    used = np.any(matrix != 0, axis=0)
    sizes = np.where(used, hi[nonempty] - lo, 1)  # roots the indices ignore collapse
    shapes = list(np.unique(sizes, axis=0))
    corners = [np.unique(lo[np.all(sizes == shape, axis=1)] @ matrix.T + const, axis=0) for shape in shapes]
    if sum(math.prod(shape.tolist()) * len(c) for shape, c in zip(shapes, corners)) > min(budget, _TRANSLATED_LIMIT):
        return None
    one_to_one = not used.any() or np.linalg.matrix_rank(matrix[:, used]) == used.sum()
    parts = [np.zeros((0, len(acc.indices)), dtype=np.int64)]
    for shape, corner in zip(shapes, corners):
        moved = np.indices(tuple(shape)).reshape(len(shape), -1).T @ matrix.T
        if not one_to_one:
            moved = np.unique(moved, axis=0)
        parts.append((corner[:, None, :] + moved[None, :, :]).reshape(-1, len(acc.indices)))
    return np.concatenate(parts)


def _affine(roots: list[Var], indices: tuple) -> tuple[np.ndarray, np.ndarray] | None:
    """*indices* as ``matrix @ roots + const``, or None if one is not affine in the roots."""
    position = {id(v): d for d, v in enumerate(roots)}
    matrix = np.zeros((len(indices), len(roots)), dtype=np.int64)
    const = np.zeros(len(indices), dtype=np.int64)
    for row, index in enumerate(indices):
        lin = Linear.of(index)
        if any(id(atom) not in position for atom in lin.terms):
            return None
        for atom, k in lin.terms.items():
            matrix[row, position[id(atom)]] += k
        const[row] = lin.const
    return matrix, const


def _domain_extents(nest: StageNest) -> list[int]:
    return [arith.value_of(d.extent) if d is not None else 1 << 62 for d in nest.domains]


def _painted_points(roots: list[Var], extents: list[int], domains: list[Range | None],
                    lo: np.ndarray, hi: np.ndarray) -> tuple[dict[Var, np.ndarray], int]:
    """The points of the union of the boxes ``[lo, hi)``, as a column per root."""
    base = np.array([arith.value_of(d.min) for d in domains], dtype=np.int64)  # type: ignore[union-attr]
    painted = np.zeros(extents, dtype=bool)
    sizes = hi - lo
    for shape in np.unique(sizes, axis=0):
        rows = np.all(sizes == shape, axis=1)
        if not np.all(shape > 0):
            continue
        offsets = np.indices(tuple(shape)).reshape(len(shape), -1)
        corner = lo[rows] - base
        painted[tuple(corner[:, d][:, None] + offsets[d][None, :] for d in range(len(shape)))] = True
    points = np.nonzero(painted)
    return {v: points[d] + base[d] for d, v in enumerate(roots)}, len(points[0])


def _isl_reads(roots: list[Var], lo: np.ndarray, hi: np.ndarray, acc: Access, names: IslNames) -> IslSet:
    """The indices *acc* reads at the points of the boxes ``[lo, hi)``, as an isl set."""
    dims = [names.fresh(f"a{d}") for d in range(len(acc.indices))]
    b = Builder(names, [*(names[v] for v in roots), *dims], [])
    out: IslSet | None = None
    for a, z in zip(lo.tolist(), hi.tolist()):
        box = [arith.logical_and(arith.ge(v, x), arith.lt(v, y)) for v, x, y in zip(roots, a, z)]
        try:
            part = b.where([*box, acc.condition], list(zip(dims, acc.indices))).project_onto(dims)
        except NonAffineError:
            found = {tuple(evaluate(i, env) for i in acc.indices)
                     for env in _box_envs(roots, a, z) if evaluate(acc.condition, env)}
            part = _point_set(found, dims, names)
        out = part if out is None else out.union(part)
    if out is None:
        return _point_set(set(), dims, names).renamed([f"a{d}" for d in range(len(dims))])
    return out.renamed([f"a{d}" for d in range(len(dims))])


def _point_set(points: set[tuple[int, ...]], dims: list[str], names: IslNames) -> IslSet:
    b = Builder(names, dims, [])
    s = b.universe().subtract(b.universe())
    for p in points:
        point = b.universe()
        for d, x in zip(dims, p):
            point = point & b.var(d).eq_set(b.pw_aff(arith.const(x)))
        s = s | point
    return IslSet(s, names)


def _box_envs(roots: list[Var], lo: list[int], hi: list[int]) -> Iterator[dict]:
    for point in product(*(range(x, y) for x, y in zip(lo, hi))):
        yield dict(zip(roots, point))


def _loads_data(acc: Access) -> bool:
    found = []
    for e in (*acc.indices, acc.condition):
        post_order_visit(e, lambda x: found.append(x) if isinstance(x, ProducerLoad) else None)
    return bool(found)
