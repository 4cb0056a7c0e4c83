"""ScheduleOps: the realize/produce form of a schedule, stages placed at their attach points.

Each stage becomes a pipeline ``realize T(region) { produce T { loops { T(...) =value } } rest }``:
root stages nest in stage order at the top, and a stage attached at a loop is placed inside
that loop before the rest of its body, as TVM does. Reductions are an init nest and an update
nest sharing the loops outside the first reduction loop.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from bound import BoundError
from bound.errors import NonAffineError
from bound.exact import ExactRegion, largest_over_loops, plain_axes, visits_exact_set
from bound.infer import infer_normalized
from bound.isl import AstBlock, AstFor, AstIf, AstNode, AstPoint, scan_loops
from lower.errors import LoweringError
from lower.loop_nest import LoopNest, bound_checks, make_loop_nest, reduction_flags, thread_axes
from lower.stmt import NO_OP, For, ForKind, IfThenElse, LetStmt, ProducerConsumer, Provide, Realize, Stmt, seq
from lower.substitute import substitute_stmt
from lower.thread_attrs import merge_thread_extents
from schedule import arith
from schedule.checks import check_flag, check_schedule
from schedule.expr import Call, Expr, ProducerLoad, Reduce, Var
from schedule.functor import free_vars, substitute
from schedule.graph import attach_ivar, create_attach_path
from schedule.itervar import IterVar, Range
from schedule.recursion import drive
from schedule.relation_passing import pass_up_index
from schedule.relations import Fuse, Rebase, Split
from schedule.schedule import Schedule
from schedule.stage import AttachType, Stage
from schedule.tensor import ComputeOp, PlaceholderOp


def schedule_ops(s: Schedule, bounds: Mapping[IterVar, Range] | None = None, *,
                 debug_keep_trivial_loop: bool = False, exact: bool = True) -> Stmt:
    """The loop nests of *s* in realize/produce form.

    :arg bounds: from :func:`bound.infer_bound` (computed with *exact* if not given).
    :raises LoweringError: for a stage that cannot be placed (naming it).
    :raises TypeError: for arguments of the wrong kind.
    """
    check_schedule("schedule_ops", s)
    check_flag("schedule_ops", "exact", exact)
    check_flag("schedule_ops", "debug_keep_trivial_loop", debug_keep_trivial_loop)
    if bounds is not None and not isinstance(bounds, Mapping):
        raise TypeError(f"schedule_ops: bounds must be the mapping infer_bound returns, not {type(bounds).__name__}")
    sn = s.normalize()
    if bounds is None:
        bounds = inferred(sn, exact)
    _check_bounds(sn, bounds)
    return build_pipeline(sn, bounds, debug_keep_trivial_loop, exact)


def _check_bounds(sn: Schedule, bounds: Mapping[IterVar, Range]) -> None:
    """Every loop of every computed stage must have a range (bounds of this very schedule)."""
    for st in sn.stages:
        if isinstance(st.op, PlaceholderOp) or st.attach_type == AttachType.InlinedAlready:
            continue
        for iv in [*st.op.root_iter_vars, *st.leaf_iter_vars]:
            if not isinstance(bounds.get(iv), Range):
                raise ValueError(f"schedule_ops: the bounds give no range for IterVar '{iv.name}' of stage "
                                 f"'{st.name}'; pass infer_bound(s) of this schedule, after its last change")


def inferred(sn: Schedule, exact: bool, regions: dict[Stage, ExactRegion] | None = None
             ) -> dict[IterVar, Range]:
    """The bounds of a normalized schedule; a schedule no loop nest can realize is a LoweringError.

    *regions*, if given, receives the exact regions that are not boxes (see :func:`build_pipeline`).
    """
    try:
        return infer_normalized(sn, exact=exact, regions=regions)
    except BoundError as err:
        raise LoweringError(str(err)) from err


def build_pipeline(sn: Schedule, bounds: Mapping[IterVar, Range], keep_trivial: bool, exact: bool,
                   regions: Mapping[Stage, ExactRegion] | None = None) -> Stmt:
    """ScheduleOps on a normalized schedule with its bounds.

    With *exact* bounds, regions lie inside their tensors, so roots need no domain guard, and
    a split tail shortens its loop instead of guarding the body. A stage of *regions* whose
    loops are its plain axes visits exactly its set, each point once (isl's AST generation);
    its storage stays the bounding box.
    """
    return merge_thread_extents(_Builder(sn, bounds, keep_trivial, exact, regions or {}).build())


Steps = Generator[Any, Any, Stmt]


class _Builder:
    def __init__(self, s: Schedule, bounds: Mapping[IterVar, Range], keep_trivial: bool, exact: bool,
                 regions: Mapping[Stage, ExactRegion]) -> None:
        self.s = s
        self.regions = regions
        self.exact = exact
        self.bounds = bounds
        self.keep_trivial = keep_trivial
        self.attached: dict[IterVar, list[Stage]] = {}
        self.roots: list[Stage] = []
        for st in s.stages:
            if isinstance(st.op, PlaceholderOp) or st.attach_type == AttachType.InlinedAlready:
                continue
            if st.attach_type == AttachType.Scope:
                self.attached.setdefault(attach_ivar(st), []).append(st)
            elif st.attach_type == AttachType.GroupRoot:
                self.roots.append(st)
            else:
                raise LoweringError(f"stage '{st.name}': attach type {st.attach_type.name} is not supported")
        self.placed: set[Stage] = set()
        self.paths = create_attach_path(s)
        self.thread_axes = thread_axes(bounds)
        self.threads = {iv: a.bind_thread for st in s.stages for iv, a in st.iter_var_attrs.items()
                        if a.bind_thread is not None}
        self.thread_tags = {t.var: t.thread_tag for t in self.threads.values()}
        self.thread_vars = set(self.thread_tags)
        self.loop_vars = {iv.var for st in s.stages for iv in [*st.all_iter_vars, *st.leaf_iter_vars]}
        self.loop_vars |= set(self.thread_tags)

    def build(self) -> Stmt:
        body = drive(self.pipelines(self.roots, None))
        missing = [st.name for ivs in self.attached.values() for st in ivs if st not in self.placed]
        if missing:
            raise LoweringError(f"stage '{missing[0]}' is attached at a loop that does not exist in "
                                "the loop nest")
        return body

    # Stages attached inside one another nest as deep as the pipeline is long: the builders are
    # generators, run by schedule.recursion.drive, that yield where they would recurse.
    def pipelines(self, stages: list[Stage], rest: Stmt | None) -> Steps:
        """The pipelines of *stages* (stage order, first outermost) around *rest*."""
        body = rest
        for st in reversed(stages):
            body = yield self.pipeline(st, body)
        return body if body is not None else NO_OP

    def pipeline(self, st: Stage, rest: Stmt | None) -> Steps:
        self.placed.add(st)
        if not isinstance(st.op, ComputeOp):
            raise LoweringError(f"stage '{st.name}': {type(st.op).__name__} cannot be lowered to loops")
        produce = yield self.compute(st)
        body = seq(ProducerConsumer(st.op, True, produce), rest)
        region = tuple(self.bounds[iv] for iv in st.op.axis)
        self.check_region_scope(st, region)
        for k in reversed(range(st.op.num_outputs)):
            body = Realize(st.op, k, region, body)
        return body

    def check_region_scope(self, st: Stage, region: tuple[Range, ...]) -> None:
        """A region may depend only on the loops around the stage, and on thread indices inside a
        kernel: one that depends on a thread outside any kernel (shared or local memory computed
        at the root) has no place to live."""
        around = set()
        in_kernel = False
        for iv in self.paths[st]:
            around.add(iv.var)
            thread = self.threads.get(iv)
            if thread is not None:
                in_kernel = True
        if in_kernel:  # every thread index is defined throughout a kernel
            around |= set(self.thread_tags)
        used = free_vars([e for r in region for e in (r.min, r.extent)])
        stray = [v for v in used if v in self.loop_vars and v not in around]
        if stray:
            tag = self.thread_tags.get(stray[0])
            what = f"'{tag}'" if tag else f"the loop '{stray[0].name}'"
            scope = f"its storage scope '{st.scope}' gives each {tag} its own copy" if tag and st.scope else \
                "it is stored per iteration"
            raise LoweringError(f"stage '{st.name}': its region depends on {what} ({scope}), but the stage is "
                                f"computed outside the loop bound to it; compute_at it inside that loop, or "
                                "store it in a wider scope such as 'global'")

    # -- one stage's loops --------------------------------------------------------------------
    def wrap(self, nest: LoopNest, inner: Stmt, start: int, stop: int, attach: bool) -> Steps:
        """*inner* inside the levels [start, stop) of *nest*, with stages attached there."""
        body = inner
        for k in reversed(range(start, stop)):
            iv = nest.leaves[k]
            if attach and iv in self.attached:
                body = yield self.pipelines(self.attached[iv], body)
            for w in reversed(nest.levels[k]):
                body = w(body)
        return body

    def compute(self, st: Stage) -> Steps:
        op = st.op
        assert isinstance(op, ComputeOp)
        leaves = st.leaf_iter_vars
        if any(arith.value_of(self.bounds[iv].extent) == 0 for iv in op.axis):
            return NO_OP  # nothing of this stage is read: it computes nothing
            yield  # a generator all the same
        if self._scannable(st):
            try:
                return self._scanned(st)
            except NonAffineError:
                pass  # a loop isl writes in a form we do not translate: compute the box
        nest = make_loop_nest(st, self.bounds, leaves, self.keep_trivial)
        preds = self.checks(st, nest, nest.values, set(), False)
        if not isinstance(op.body[0], Reduce):
            provides = [self.provide(op, k, op.body[k], nest.values) for k in range(op.num_outputs)]
            return (yield self.wrap(nest, _guard(preds, seq(*provides)), 0, len(leaves), True))
        flags = reduction_flags(st)
        begin = next((k for k, iv in enumerate(leaves) if flags.get(iv, 0) & 2), len(leaves))
        update = _guard(preds, self.update(op, nest.values))
        update = yield self.wrap(nest, update, begin, len(leaves), True)
        if self.keep_trivial:  # TVM drops the init in this debugging mode
            return (yield self.wrap(nest, update, 0, begin, True))
        init_leaves = [iv for iv in leaves[begin:] if flags.get(iv, 0) != 2]
        init_nest = make_loop_nest(st, self.bounds, init_leaves, self.keep_trivial, rename=".init")
        values = {**nest.values, **{iv: v for iv, v in init_nest.values.items() if iv in set(init_leaves)}}
        skipped = {iv for iv in leaves[begin:] if flags.get(iv, 0) == 2}
        values = _values_above(st, self.bounds, values, skipped)
        # The init checks no reduction IterVar, root or derived (TVM's skip_iter).
        reduce_only = {iv for iv, flag in flags.items() if flag == 2}
        init_preds = self.checks(st, init_nest, values, reduce_only, True)
        init = seq(*(self.provide(op, k, _identity(op, k), values) for k in range(op.num_outputs)))
        init = yield self.wrap(init_nest, _guard(init_preds, init), 0, len(init_leaves), False)
        return (yield self.wrap(nest, seq(init, update), 0, begin, True))

    def _scannable(self, st: Stage) -> bool:
        """Whether *st* may visit its exact set: its loops are its axes, plain, and host nothing."""
        return st in self.regions and not self.keep_trivial and visits_exact_set(st, self.s.stages, self.bounds)

    def _scanned(self, st: Stage) -> Stmt:
        """*st*'s provides at exactly the points of its region (see :func:`build_pipeline`)."""
        op = st.op
        assert isinstance(op, ComputeOp)
        exact = self.regions[st]
        axes = [iv.var for iv in op.axis]
        if plain_axes(st):
            tree = scan_loops(exact.region, exact.guards, axes)
        else:  # the stage's own loops, as functions of its axes
            values = _leaf_values(st, self.bounds)
            leaves = st.leaf_iter_vars
            tree = scan_loops(exact.region, exact.guards, [iv.var for iv in leaves],
                              (axes, [values[iv] for iv in leaves]))

        def stmt(node: AstNode) -> Stmt:
            match node:
                case AstBlock(items=items):
                    return seq(*(stmt(x) for x in items))
                case AstIf(condition=c, then=t, otherwise=o):
                    return IfThenElse(exact.restore(c), stmt(t), stmt(o) if o is not None else None)
                case AstFor(var=v, lo=lo, extent=extent, stride=1, body=body):
                    return For(v, exact.restore(lo), exact.restore(extent), ForKind.SERIAL, stmt(body))
                case AstFor(var=v, lo=lo, extent=extent, stride=k, body=body):
                    step = Var(v.name + ".s", v.dtype)
                    inner = substitute_stmt(stmt(body), {v: arith.add(exact.restore(lo), arith.mul(step, k))})
                    return For(step, arith.const(0, v.dtype), exact.restore(extent), ForKind.SERIAL, inner)
                case AstPoint(coordinates=coords):
                    values = {iv: exact.restore(c) for iv, c in zip(op.axis, coords)}
                    return seq(*(self.provide(op, k, op.body[k], values) for k in range(op.num_outputs)))
            raise LoweringError(f"stage '{st.name}': unexpected loop structure from isl")
        return stmt(tree)

    def checks(self, st: Stage, nest: LoopNest, values: Mapping[IterVar, Expr], skip: set[IterVar],
               skip_root_domain: bool) -> list[Expr]:
        preds = bound_checks(st, self.bounds, values, skip, skip_root_domain or self.exact, self.paths[st],
                             self.thread_axes)
        # Bounds of loop-dependent reductions mention the roots; write them in terms of the loops.
        roots = {iv.var: values[iv] for iv in st.op.root_iter_vars if iv in values and values[iv] is not iv.var}
        preds = [substitute(p, roots) for p in preds] if roots else preds
        if not self.exact:
            return preds
        outer = {iv.var for iv in self.paths[st]} | self.thread_vars
        preds = nest.tighten(preds, outer)
        if not preds:
            return preds
        # A guard that holds at every iteration of the loops (isl decides) is left out.
        loops = {iv.var: self.bounds[iv] for iv in self.paths[st] if iv in self.bounds}
        loops.update((var, Range.from_min_extent(arith.const(0, extent.dtype), extent))
                     for var, extent, _ in filter(None, nest.loops))
        return [p for p in preds if largest_over_loops(arith.select(p, 0, 1), loops) != 0]

    def provide(self, op: ComputeOp, k: int, value: Expr, values: Mapping[IterVar, Expr]) -> Provide:
        vmap = {iv.var: values[iv] for iv in op.root_iter_vars if iv in values}
        return Provide(op, k, substitute(value, vmap), tuple(vmap[iv.var] for iv in op.axis))

    def update(self, op: ComputeOp, values: Mapping[IterVar, Expr]) -> Stmt:
        red = op.body[0]
        assert isinstance(red, Reduce)
        vmap = {iv.var: values[iv] for iv in op.root_iter_vars}
        axes = tuple(vmap[iv.var] for iv in op.axis)
        lhs = [ProducerLoad(op.output(k), axes) for k in range(op.num_outputs)]
        rhs = [substitute(x, vmap) for x in red.source]
        # The combiner may use the stage's own axes (a loop-dependent reducer).
        results = tuple(substitute(r, vmap) for r in red.combiner.combine(lhs, rhs))
        if len(results) == 1:
            body: Stmt = Provide(op, 0, results[0], axes)
        else:
            # Every output's new value is computed from the old ones before any is written.
            temps = [Var(f"{op.name}.v{k}", r.dtype) for k, r in enumerate(results)]
            body = seq(*(Provide(op, k, t, axes) for k, t in enumerate(temps)))
            for t, r in reversed(list(zip(temps, results))):
                body = LetStmt(t, r, body)
        cond = substitute(red.condition, vmap)
        if arith.value_of(cond) != 1:
            body = IfThenElse(cond, body)
        return body


def _values_above(st: Stage, bounds: Mapping[IterVar, Range], values: dict[IterVar, Expr],
                  skipped: set[IterVar]) -> dict[IterVar, Expr]:
    """*values* re-derived above the leaves, with skipped (reduction) leaves at their minimum."""
    leaf_values = {iv: (bounds[iv].min if iv in skipped else values[iv]) for iv in st.leaf_iter_vars}
    pass_up_index(st, bounds, leaf_values, allow_missing=True)
    return leaf_values


def _identity(op: ComputeOp, k: int) -> Expr:
    red = op.body[0]
    assert isinstance(red, Reduce)
    if red.init:
        return red.init[k]
    return red.combiner.identity_element[k]


def _guard(preds: list[Expr], body: Stmt) -> Stmt:
    for p in reversed(preds):
        body = IfThenElse(Call("bool", "likely", (p,)), body)
    return body


__all__ = ["LoweringError", "build_pipeline", "schedule_ops"]


def _leaf_values(st: Stage, bounds: Mapping[IterVar, Range]) -> dict[IterVar, Expr]:
    """Each IterVar of *st* as a function of its axes' values: the inverse of the loops'
    ``pass_up_index`` (a split parent is ``inner + outer * factor + min``)."""
    values: dict[IterVar, Expr] = {iv: iv.var for iv in st.op.axis}
    for rel in st.relations:
        match rel:
            case Split(parent=p, outer=o, inner=i):
                offset = arith.sub(values[p], bounds[p].min)
                values[o] = arith.floordiv(offset, bounds[i].extent)
                values[i] = arith.floormod(offset, bounds[i].extent)
            case Fuse(outer=o, inner=i, fused=f):
                values[f] = arith.add(arith.mul(arith.sub(values[o], bounds[o].min), bounds[i].extent),
                                      arith.sub(values[i], bounds[i].min))
            case Rebase(parent=p, rebased=r):
                values[r] = arith.sub(values[p], bounds[p].min)
    return values
