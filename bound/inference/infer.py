"""InferBound: the range of every IterVar of a schedule.

Stages are visited consumers first. For each stage, InferRootBound asks every consumer which
region of the stage's outputs it reads while the stage is computed once (phases 1-3), and
GatherBound takes the hull per dimension (phase 4); PassDownDomain then gives ranges to the
stage's split and fused IterVars.

``exact=False`` follows the TVM of the InferBound document rule for rule. ``exact=True``
computes each consumer's region exactly: directly where its reads are translations of its
iteration box (:mod:`bound.inference.box_reads`), otherwise with isl (exact unions, fuse, split tails,
conditional reads). Where the arithmetic is not quasi-affine it falls back on TVM's later,
tighter interval rules; it is never looser than ``exact=False``. What each kind of operation
reads and which axes span its region come from :mod:`bound.operation`.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass, field

from bound.arith.analyzer import Analyzer
from bound.arith.interval import FAITHFUL, TIGHT, TVM_V013, IntervalSet, Rules, eval_set, union
from bound.arith.simplify import node_count
from bound.arith.symbols import BoundSymbols
from bound.errors import BoundError, NonAffineError
from bound.inference.bound_map import BoundMap
from bound.inference.box_reads import translated_box
from bound.inference.exact import (
    ExactRegion,
    LoopView,
    affine_loops,
    iteration_constraints,
    iteration_ranges,
    read_region,
    region_guards,
    region_ranges,
)
from bound.inference.message_passing import pass_up_domain
from bound.inference.thread_scope import default_storage_rank, need_relax, storage_rank, thread_rank
from bound.isl import IslNames
from bound.operation.registry import bounds_of
from schedule import arith
from schedule.base.pass_context import default_exact, tvm_rules_on
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import free_vars
from schedule.ir.itervar import IterVar, IterVarType, Range
from schedule.operation.graph import feed_graph, read_graph
from schedule.operation.tensor import Operation, Tensor
from schedule.schedule.graph import create_attach_path
from schedule.schedule.relation_passing import pass_down_domain
from schedule.schedule.relations import Rebase
from schedule.schedule.schedule import Schedule, check_schedule
from schedule.schedule.stage import AttachType, Stage


@dataclass
class GraphContext:
    """What InferBound needs to know about the whole schedule."""

    feed: dict[Tensor, list[Operation]]
    attach_path: dict[Stage, list[IterVar]]
    bind_map: dict[IterVar, IterVar]
    stage_of: dict[Operation, Stage]
    loop_vars: set[Var]
    shape_vars: list[Var]  # the variables of the tensors' shapes, which are never negative

    @staticmethod
    def of(s: Schedule) -> GraphContext:
        roots = [s.stage_map[op].op for op in s.outputs]
        bind_map = {}
        for st in s.stages:
            for iv, attr in st.iter_var_attrs.items():
                if attr.bind_thread is not None:
                    bind_map[iv] = attr.bind_thread
        loop_vars = {iv.var for st in s.stages for iv in _iter_vars(st)}
        loop_vars |= {thread.var for thread in bind_map.values()}
        shapes = [e for st in s.stages for k in range(st.op.num_outputs) for e in st.op.output(k).shape]
        return GraphContext(feed_graph(read_graph(roots)), create_attach_path(s),
                            bind_map, {st.op: st for st in s.stages}, loop_vars, free_vars(shapes))

    def tag(self, iv: IterVar) -> str:
        thread = self.bind_map.get(iv)
        return thread.thread_tag if thread is not None else iv.thread_tag


def infer_bound(sch: Schedule, *, exact: bool | None = None) -> BoundMap:
    """The range of every IterVar of every stage of *sch* (normalized first, not changed): a
    dict that prints as a table of stage, iter var, min and extent.

    :arg exact: use isl where the index arithmetic is quasi-affine (see the module docstring).
    :raises BoundError: for a schedule no loop nest can realize (a consumer outside the loops
        its producer is attached in, an output attached somewhere).
    :raises TypeError: if *sch* is not a Schedule or *exact* not a bool.
    """
    check_schedule("infer_bound", sch)
    exact = default_exact("infer_bound", exact)
    normalized = sch.normalize()
    stages = {iv: stage.name for s in (sch, normalized) for stage in s.stages for iv in stage.all_iter_vars}
    rebased = {new: stage.name for s in (sch, normalized) for stage in s.stages
               for new in stage.rebased_iter_vars.values()}
    return BoundMap(infer_normalized(normalized, exact=exact), stages, rebased)


def infer_normalized(s: Schedule, *, exact: bool = True, fallbacks: list[str] | None = None,
                     regions: dict[Stage, ExactRegion] | None = None) -> dict[IterVar, Range]:
    """InferBound on an already normalized schedule.

    :arg fallbacks: if given, receives the names of the stages whose region exact mode had to
        compute with intervals (some consumer's index arithmetic is not quasi-affine).
    :arg regions: if given, receives (exact mode) the stages whose region per execution is
        not a box, with that set.
    """
    named = infer_named(s, exact=exact, fallbacks=fallbacks)
    if regions is not None:
        regions.update(named.regions or {})

    def final(e: Expr) -> Expr:
        written = named.restore(e)
        if written is e:
            return e
        # Deep compute_at nests give bounds too large to be worth another pass.
        return named.analyzer.simplify(written) if node_count(written) <= _SIMPLIFY_LIMIT else written

    return {iv: Range.from_min_extent(final(r.min), final(r.extent)) for iv, r in named.ranges.items()}


@dataclass
class NamedBounds:
    """InferBound's ranges with exact mode's named bounds kept (see :mod:`bound.arith.symbols`).

    *definitions* gives each name its expression, itself in loop variables and other names;
    :meth:`restore` writes a name out. Counting with the names as isl dimensions costs time
    linear in the nesting depth, where the restored bounds grow with it.
    """

    ranges: dict[IterVar, Range]
    definitions: dict[Var, Expr]
    analyzer: Analyzer
    symbols: BoundSymbols | None
    #: exact mode: the stages whose region per execution is not a box, with that set
    regions: dict[Stage, ExactRegion] | None = None
    _inputs: dict[Var, list[Var]] = field(default_factory=dict)

    def inputs(self, name: Var) -> list[Var]:
        """The variables of *name*'s definition."""
        got = self._inputs.get(name)
        if got is None:
            got = self._inputs[name] = free_vars([self.definitions[name]])
        return got

    def restore(self, e: Expr) -> Expr:
        return e if self.symbols is None else self.symbols.restore(e)


def infer_named(s: Schedule, *, exact: bool = True, fallbacks: list[str] | None = None) -> NamedBounds:
    """InferBound on a normalized schedule, the loop-dependent exact ranges left named."""
    ctx = GraphContext.of(s)
    rules = TIGHT if exact else (TVM_V013 if tvm_rules_on() else FAITHFUL)
    ret: dict[IterVar, Range] = {}
    analyzer = Analyzer()
    names = IslNames()
    symbols = BoundSymbols(ctx.loop_vars, analyzer) if exact else None
    regions: dict[Stage, ExactRegion] | None = {} if exact else None
    thread_extents: dict[Var, int] = {}
    for stage in reversed(s.stages):
        if not _infer_root_bound(stage, ctx, ret, rules, symbols, analyzer, names, regions) and fallbacks is not None:
            fallbacks.append(stage.name)
        if stage.attach_type == AttachType.InlinedAlready:
            continue
        for iv in stage.op.root_iter_vars:
            if iv in ret:
                analyzer.bind(iv, ret[iv])
        try:
            pass_down_domain(stage, ret, analyzer, tighten_split=rules.split_tighten)
        except ValueError as err:
            raise BoundError(f"stage '{stage.name}': {err}") from None
        for iv in stage.all_iter_vars + stage.leaf_iter_vars:
            if iv in ret:
                analyzer.bind(iv, ret[iv])
        _bind_threads(stage, ctx, ret, analyzer, thread_extents)
    ranges = {iv: Range.from_min_extent(analyzer.simplify(r.min), analyzer.simplify(r.extent))
              for iv, r in ret.items()}
    return NamedBounds(ranges, symbols.definitions if symbols is not None else {}, analyzer, symbols, regions)


def _bind_threads(stage: Stage, ctx: GraphContext, ret: Mapping[IterVar, Range], analyzer: Analyzer,
                  extents: dict[Var, int]) -> None:
    """Give the analyzer the range of each thread variable *stage* binds (the widest constant
    extent any stage gives it), so that the bounds of the stages computed inside its loops,
    written in that variable, simplify as they do in the loop's own variable."""
    for iv in stage.leaf_iter_vars:
        thread = ctx.bind_map.get(iv)
        r = ret.get(iv)
        if thread is None or r is None or arith.value_of(r.min) != 0:
            continue
        extent = arith.value_of(r.extent)
        if extent is None or extent <= extents.get(thread.var, 0):
            continue
        extents[thread.var] = extent
        analyzer.bind(thread.var, (0, extent - 1))


_SIMPLIFY_LIMIT = 200


def _iter_vars(stage: Stage) -> list[IterVar]:
    ivs = dict.fromkeys(stage.all_iter_vars)
    for rel in stage.relations:
        if isinstance(rel, Rebase):
            ivs.update(dict.fromkeys((rel.parent, rel.rebased)))
    return list(ivs)


def scope_rank_of(stage: Stage, ctx: GraphContext) -> int:
    """The storage rank of *stage*: its scope, or where its attach loops put it."""
    if stage.scope:
        return storage_rank(stage.scope)
    ranks = [thread_rank(tag)[0] for iv in ctx.attach_path[stage] if (tag := ctx.tag(iv)) and tag != "pipeline"]
    return default_storage_rank(max(ranks, default=-1))


def _consumers(stage: Stage, ctx: GraphContext) -> list[Operation]:
    found: dict[Operation, None] = {}
    for k in range(stage.op.num_outputs):
        for op in ctx.feed.get(stage.op.output(k), []):
            found.setdefault(op, None)
    return list(found)


def _infer_root_bound(stage: Stage, ctx: GraphContext, ret: dict[IterVar, Range], rules: Rules,
                      symbols: BoundSymbols | None, analyzer: Analyzer, names: IslNames,
                      exact_regions: dict[Stage, ExactRegion] | None = None) -> bool:
    """Set the ranges of *stage*'s root IterVars; False if exact mode fell back on intervals.

    *symbols* (exact mode) names the loop-dependent ranges this sets.
    """
    if stage.attach_type == AttachType.Inline:
        raise BoundError(f"stage '{stage.name}' is marked inline; normalize the schedule first")
    if stage.attach_type == AttachType.InlinedAlready:
        return True
    if stage.is_output and stage.attach_type != AttachType.GroupRoot:
        raise BoundError(f"stage '{stage.name}' is an output and must be computed at the root")
    kind = bounds_of(stage.op)
    axes = kind.region_axes(stage.op)
    if stage.is_output or not axes:  # computed whole
        for iv in stage.op.root_iter_vars:
            ret[iv] = iv.dom  # type: ignore[assignment]
        return True
    outputs = [stage.op.output(k) for k in range(stage.op.num_outputs)]
    ndim = len(outputs[0].shape)
    requests: list[list[IntervalSet]] = [[] for _ in range(ndim)]
    regions = []
    fixed_all: dict = {}
    scope_rank = scope_rank_of(stage, ctx)
    all_exact = True
    consumers = _consumers(stage, ctx)
    exact_reads: list[tuple] = []  # exact mode: (consumer, op, view, accesses, ranges) per reading consumer
    idle = 0  # consumers that compute nothing
    for op in consumers:
        consumer = ctx.stage_of[op]
        consumer_kind = bounds_of(op)
        if consumer_kind.computes_nothing(op, ret):
            idle += 1
            continue  # the consumer computes nothing, so it reads nothing
        view = _classify(stage, consumer, ctx, ret, scope_rank)
        cret = ret
        if symbols is not None:
            cret, view = _expanded(consumer, ret, view, symbols)
        for t in consumer_kind.reads_whole(op, outputs):
            for d, extent in enumerate(t.shape):
                requests[d].append(IntervalSet(arith.const(0, extent.dtype), arith.sub(extent, 1)))
        accesses = consumer_kind.reads(op, outputs)
        if not accesses:
            continue
        if symbols is not None:
            exact_reads.append((consumer, op, view, accesses, cret))
            continue
        _interval_requests(consumer, op, view, accesses, cret, rules, analyzer, requests)
    box = None
    if len(exact_reads) == 1 and not any(requests):
        consumer, op, view, accesses, cret = exact_reads[0]
        try:
            root_values, constraints = iteration_ranges(consumer, cret, view)
            box = translated_box(accesses, root_values, constraints, view.all_relaxed, outputs[0].shape,
                                 analyzer.const_bounds())
        except NonAffineError:
            box = None
    for consumer, op, view, accesses, cret in exact_reads if box is None else ():
        try:
            root_values, guards = iteration_constraints(consumer, cret, view)
            regions.append(read_region(accesses, root_values, guards, list(view.all_relaxed), names,
                                       view.fixed))
            fixed_all.update(view.fixed)
        except NonAffineError:
            all_exact = False
            _interval_requests(consumer, op, view, accesses, cret, rules, analyzer, requests)
    if box is not None:
        assert symbols is not None
        for d, (lo, extent) in enumerate(box):
            r = Range.from_min_extent(analyzer.simplify(lo), analyzer.simplify(extent))
            ret[axes[d]] = symbols.name_range(r, f"{stage.name}.{axes[d].var.name}")
    elif regions:
        region = regions[0]
        for other in regions[1:]:
            region = region.union(other)
        region = region.within_box(outputs[0].shape)
        assert symbols is not None
        empty = region.is_empty()  # no quasi-affine read touches any element
        if empty:
            ranges = [Range.from_min_extent(arith.const(0, iv.var.dtype), arith.const(0, iv.var.dtype))
                      for iv in axes]
        else:
            ranges = region_ranges(region, fixed_all, symbols.bounds, ctx.shape_vars)
            if (exact_regions is not None and not any(requests) and kind.exact_regions and affine_loops(stage)
                    and not region.is_box()):
                guards = region_guards(region, fixed_all, symbols.bounds)
                exact_regions[stage] = ExactRegion(region, guards, symbols.restore)
        for d, r in enumerate(ranges):
            if empty and requests[d]:
                continue  # the interval requests alone decide
            if not requests[d]:
                ret[axes[d]] = symbols.name_range(r, f"{stage.name}.{axes[d].var.name}")
                continue
            # Clamped like the interval requests: where the exact set is empty its box is arbitrary,
            # and the hull must not carry it outside the tensor.
            hull = IntervalSet(r.min, arith.sub(arith.add(r.min, r.extent), 1))
            requests[d].append(clamp_request(hull, outputs[0].shape[d], analyzer, rules))
    nothing = consumers and idle == len(consumers)  # no consumer reads anything: compute nothing
    for d, iv in enumerate(axes):
        if iv not in ret and nothing and symbols is not None:
            ret[iv] = Range.from_min_extent(arith.const(0, iv.var.dtype), arith.const(0, iv.var.dtype))
        elif iv not in ret:
            ret[iv] = union(requests[d]).cover_range(iv.dom) if requests[d] else iv.dom
            if symbols is not None:
                ret[iv] = _nonnegative(ret[iv], ctx.loop_vars, analyzer)
    for iv in stage.op.root_iter_vars:
        if iv not in axes:
            ret[iv] = iv.dom  # type: ignore[assignment]  # e.g. reduction axes: always whole
    return all_exact


def _nonnegative(r: Range, loop_vars: set[Var], analyzer: Analyzer) -> Range:
    """*r* with an extent of at least 0: a region that interval arithmetic bounds per iteration
    of outer loops is empty (not negative) where its consumer computes nothing, so that loops
    fused over it do not multiply two negative extents into a positive count."""
    extent = r.extent
    if arith.value_of(extent) is not None or not any(v in loop_vars for v in free_vars([extent])):
        return r
    if analyzer.can_prove(arith.ge(extent, 0)):
        return r
    return Range.from_min_extent(r.min, arith.max_expr(extent, arith.const(0, extent.dtype)))


def _expanded(consumer: Stage, ret: dict[IterVar, Range], view: LoopView, symbols: BoundSymbols
              ) -> tuple[Mapping[IterVar, Range], LoopView]:
    """The consumer's ranges and *view* with the named bounds that depend on a relaxed loop
    written out: the producer's region spans the values they take over that loop."""
    loops = frozenset(view.all_relaxed)
    if not loops:
        return ret, view
    # Over *ret*, not a copy of it: a copy per consumer made a chain of N stages cost N^2.
    cret = ChainMap({iv: symbols.expand_range(ret[iv], loops) for iv in _iter_vars(consumer) if iv in ret}, ret)
    view = LoopView({iv: symbols.expand(v, loops) for iv, v in view.leaf_values.items()},
                    *({v: symbols.expand_range(r, loops) for v, r in part.items()}
                      for part in (view.relaxed, view.relaxed_outer, view.fixed)))
    return cret, view


def _classify(stage: Stage, consumer: Stage, ctx: GraphContext, ret: Mapping[IterVar, Range], scope_rank: int
              ) -> LoopView:
    """Phase 1: which of *consumer*'s loops the region of *stage* spans, and which it sits inside."""
    stage_attach = ctx.attach_path[stage]
    anchor = stage_attach[0] if stage_attach else None
    found = False
    view = LoopView({}, {}, {}, {})
    for iv in reversed(consumer.leaf_iter_vars):
        if iv is anchor:
            found = True
        vr = ret[iv]
        if arith.value_of(vr.extent) == 1:
            view.leaf_values[iv] = vr.min
        elif not need_relax(ctx.tag(iv), found, scope_rank):
            _require_zero_min(iv, vr, consumer)
            thread = ctx.bind_map.get(iv)
            var = thread.var if thread is not None else iv.var
            view.leaf_values[iv] = var
            view.fixed[var] = vr
        else:
            view.leaf_values[iv] = iv.var
            view.relaxed[iv.var] = vr
    for iv in ctx.attach_path[consumer]:
        if iv is anchor:
            found = True
        vr = ret[iv]
        _require_zero_min(iv, vr, consumer)
        thread = ctx.bind_map.get(iv)
        target = view.relaxed_outer if need_relax(ctx.tag(iv), found, scope_rank) else view.fixed
        target[iv.var] = vr
        if thread is not None:
            target[thread.var] = vr
    for iv in consumer.op.root_iter_vars:
        if iv.iter_type == IterVarType.Opaque and iv in ret:  # no loop: it spans its whole range
            view.leaf_values[iv] = iv.var
            view.relaxed[iv.var] = ret[iv]
    if stage_attach and not found:
        raise BoundError(f"stage '{stage.name}' is attached at '{anchor.name}', but its consumer "
                         f"'{consumer.name}' does not run inside that loop; attach '{stage.name}' at "
                         f"a loop that encloses every consumer")
    return view


def _require_zero_min(iv: IterVar, vr: Range, consumer: Stage) -> None:
    if arith.value_of(vr.min) != 0:
        raise BoundError(f"stage '{consumer.name}': loop '{iv.name}' starts at {vr.min}, not 0; "
                         "normalize the schedule first")


def _interval_requests(consumer: Stage, op: Operation, view: LoopView, accesses: list,
                       ret: Mapping[IterVar, Range], rules: Rules, analyzer: Analyzer,
                       requests: list[list[IntervalSet]]) -> None:
    """Phases 2-3 with interval sets: up to the consumer's roots, relax, evaluate every read."""
    up_state = {}
    for iv, value in view.leaf_values.items():
        up_state[iv] = (IntervalSet.from_range(view.relaxed[iv.var]) if iv.var in view.relaxed
                        else IntervalSet.point(value))
    pass_up_domain(consumer, ret, up_state, analyzer, rules)
    relax_set = {v: IntervalSet.from_range(r) for v, r in view.relaxed_outer.items()}
    with analyzer.rebound([iv.var for iv in op.root_iter_vars]) as local:
        dom_map: dict = {}
        for iv in op.root_iter_vars:
            r = up_state[iv].cover_range(iv.dom) if iv in up_state else iv.dom
            if relax_set:
                lo = eval_set(r.min, relax_set, local, rules)
                hi = eval_set(arith.sub(arith.add(r.min, r.extent), 1), relax_set, local, rules)
                dom_map[iv.var] = IntervalSet(lo.min_value, hi.max_value)
            else:
                dom_map[iv.var] = IntervalSet.from_range(r)
            local.bind(iv, r)
        for acc in accesses:
            for d, (index, extent) in enumerate(zip(acc.indices, acc.tensor.shape)):
                s = eval_set(index, dom_map, local, rules)
                requests[d].append(clamp_request(s, extent, local, rules))


def clamp_request(s: IntervalSet, extent, analyzer: Analyzer, rules: Rules) -> IntervalSet:
    """Restrict a request to the tensor's extent, as *rules* say."""
    from bound.arith.interval import NEG_INF, POS_INF

    zero, last = arith.const(0, extent.dtype), arith.sub(extent, 1)
    lo, hi = s.min_value, s.max_value
    if rules.clamp == "both_or_none":
        covers = (lo is NEG_INF or analyzer.can_prove(arith.ge(zero, lo))) and \
            (hi is POS_INF or analyzer.can_prove(arith.le(last, hi)))
        return IntervalSet(zero, last) if covers else s
    if rules.clamp == "per_end":
        if lo is NEG_INF or analyzer.can_prove(arith.ge(zero, lo)):
            lo = zero
        if hi is POS_INF or analyzer.can_prove(arith.le(last, hi)):
            hi = last
        return IntervalSet(lo, hi)
    lo = zero if lo is NEG_INF else analyzer.simplify(arith.max_expr(lo, zero))
    hi = last if hi is POS_INF else analyzer.simplify(arith.min_expr(hi, last))
    return IntervalSet(lo, hi)

