"""ScheduleOps: the realize/produce form of a schedule, stages placed at their attach points.

Each stage becomes a pipeline ``realize T(region) { produce T { loops { T(...) =value } } rest }``:
root stages nest in stage order at the top, and a stage attached at a loop is placed inside
that loop before the rest of its body, as TVM does. Reductions are an init nest and an update
nest sharing the loops outside the first reduction loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import GeneratorType
from typing import Any

from bound import BoundError
from bound.inference.exact import ExactRegion, largest_over_loops
from bound.inference.infer import infer_normalized
from bound.operation.registry import bounds_of
from lower.errors import LoweringError
from lower.ir.stmt import NO_OP, ProducerConsumer, Realize, Stmt, seq
from lower.operation.base import Steps
from lower.operation.loop_nest import LoopNest, bound_checks, thread_axes
from lower.operation.registry import lowering_of
from lower.passes.aliases import store_aliases
from lower.passes.thread_attrs import merge_thread_extents
from schedule import arith
from schedule.base.checks import check_flag
from schedule.base.pass_context import default_exact
from schedule.base.recursion import drive
from schedule.ir.expr import Expr
from schedule.ir.functor import free_vars, substitute
from schedule.ir.itervar import IterVar, Range
from schedule.operation.tensor import Operation, Tensor
from schedule.schedule.graph import attach_ivar, create_attach_path
from schedule.schedule.schedule import Schedule, check_schedule
from schedule.schedule.stage import ATTACHED, AttachType, Stage


def schedule_ops(s: Schedule, bounds: Mapping[IterVar, Range] | None = None, *,
                 debug_keep_trivial_loop: bool = False, exact: bool | None = None) -> Stmt:
    """The loop nests of *s* in realize/produce form.

    :arg bounds: from :func:`bound.infer_bound` (computed with *exact* if not given).
    :raises LoweringError: for a stage that cannot be placed (naming it).
    :raises TypeError: for arguments of the wrong kind.
    """
    check_schedule("schedule_ops", s)
    exact = default_exact("schedule_ops", exact)
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
        if bounds_of(st.op).is_input(st.op) or st.attach_type == AttachType.InlinedAlready:
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
        self.aliases: dict[Tensor, Tensor] = {}
        claimed: set[Operation] = set()  # placed by another operation's lowering
        for st in s.stages:
            claimed.update(lowering_of(st.op).placed_inside(st.op))
            self.aliases.update(st.op.aliases())
        for st in s.stages:
            if bounds_of(st.op).is_input(st.op) or st.attach_type == AttachType.InlinedAlready:
                continue
            if st.op in claimed and st.attach_type == AttachType.GroupRoot:
                continue
            if st.attach_type in ATTACHED:
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

    def stage_of(self, op: Operation) -> Stage:
        st = self.s.stage_of(op)
        assert st is not None
        return st

    def build(self) -> Stmt:
        body = drive(self.pipelines(self.roots, None))
        if self.aliases:
            body = store_aliases(body, self.aliases)
        missing = [st.name for ivs in self.attached.values() for st in ivs if st not in self.placed]
        if missing:
            raise LoweringError(f"stage '{missing[0]}' is attached at a loop that does not exist in "
                                "the loop nest")
        return body

    # Stages attached inside one another nest as deep as the pipeline is long: the builders are
    # generators, run by schedule.base.recursion.drive, that yield where they would recurse.
    def pipelines(self, stages: list[Stage], rest: Stmt | None) -> Steps:
        """The pipelines of *stages* (stage order, first outermost) around *rest*."""
        body = rest
        for st in reversed(stages):
            body = yield self.pipeline(st, body)
        return body if body is not None else NO_OP

    def pipeline(self, st: Stage, rest: Stmt | None) -> Steps:
        self.placed.add(st)
        produce = lowering_of(st.op).produce(self, st)
        if isinstance(produce, GeneratorType):
            produce = yield produce
        body = seq(ProducerConsumer(st.op, True, produce), rest)
        axes = bounds_of(st.op).region_axes(st.op)
        for k in reversed(range(st.op.num_outputs)):
            if axes:
                region = tuple(self.bounds[iv] for iv in axes)
            else:  # computed whole
                region = tuple(Range.from_min_extent(arith.const(0, e.dtype), e) for e in st.op.output(k).shape)
            self.check_region_scope(st, region)
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

    def checks(self, st: Stage, nest: LoopNest, values: Mapping[IterVar, Expr], skip: set[IterVar],
               skip_root_domain: bool, around: Sequence[Any] = ()) -> list[Expr]:
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
                     for var, extent, _ in filter(None, [*around, *nest.loops]))
        return [p for p in preds if largest_over_loops(arith.select(p, 0, 1), loops) != 0]



__all__ = ["LoweringError", "build_pipeline", "schedule_ops"]
