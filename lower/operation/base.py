"""What ScheduleOps needs to know of one kind of operation: its body in the loop nest.

The pipeline around it (realize, produce, the stages attached in its loops) is the same for
every kind; :class:`PipelineBuilder` is what a kind may use of it.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any, Protocol

from bound.inference.exact import ExactRegion
from lower.ir.stmt import IfThenElse, Stmt
from lower.operation.loop_nest import LoopNest, make_loop_nest, reduction_flags, values_above
from schedule.ir.expr import Call, Expr
from schedule.ir.itervar import IterVar, Range
from schedule.operation.tensor import Operation
from schedule.schedule.schedule import Schedule
from schedule.schedule.stage import Stage

#: A builder step: a generator that yields where it would recurse (see schedule.base.recursion).
Steps = Generator[Any, Any, Stmt]


class PipelineBuilder(Protocol):
    """The ScheduleOps state an operation's lowering may use."""

    s: Schedule
    bounds: Mapping[IterVar, Range]
    exact: bool
    keep_trivial: bool
    regions: Mapping[Stage, ExactRegion]

    def wrap(self, nest: LoopNest, inner: Stmt, start: int, stop: int, attach: bool) -> Steps:
        """*inner* inside the levels [start, stop) of *nest*, with the stages attached there."""
        ...

    def pipelines(self, stages: list[Stage], rest: Stmt | None) -> Steps:
        """The pipelines of *stages* (the first outermost) around *rest*."""
        ...

    def stage_of(self, op: Operation) -> Stage:
        """The stage that computes *op*."""
        ...

    def checks(self, st: Stage, nest: LoopNest, values: Mapping[IterVar, Expr], skip: set[IterVar],
               skip_root_domain: bool, around: Sequence[Any] = ()) -> list[Expr]:
        """The guards an iteration of *st*'s loops must pass; *around* are the loops (as in
        :attr:`LoopNest.loops`) of another nest that encloses *nest*."""
        ...


class OperationLowering:
    """The loop-nest body of one kind of operation (TVM's BuildProvide)."""

    def produce(self, b: PipelineBuilder, st: Stage) -> Steps | Stmt:
        """The statement inside ``produce`` for *st*."""
        raise NotImplementedError

    def placed_inside(self, op: Operation) -> list[Operation]:
        """Root operations whose pipelines *op*'s own lowering places (a scan's init)."""
        return []


def init_nest(b: PipelineBuilder, st: Stage, nest: LoopNest, begin: int, stop: int
              ) -> tuple[LoopNest, dict[IterVar, Expr], list[Expr]]:
    """The loops of a reduction's init over the data leaves in [begin, stop) (renamed
    ``.init``), the value of every IterVar there with reduction leaves at their minimum, and
    the init's guards, which check no reduction IterVar (TVM's skip_iter)."""
    flags = reduction_flags(st)
    leaves = st.leaf_iter_vars
    chosen = [iv for iv in leaves[begin:stop] if flags.get(iv, 0) != 2]
    init = make_loop_nest(st, b.bounds, chosen, b.keep_trivial, rename=".init")
    values = {**nest.values, **{iv: v for iv, v in init.values.items() if iv in set(chosen)}}
    values = values_above(st, b.bounds, values, {iv for iv in leaves[begin:] if flags.get(iv, 0) == 2})
    preds = b.checks(st, init, values, {iv for iv, flag in flags.items() if flag == 2}, True, nest.loops[:begin])
    return init, values, preds


def guard(preds: Sequence[Expr], body: Stmt) -> Stmt:
    """*body* inside ``if (likely(p))`` for each of *preds*, the first outermost."""
    for p in reversed(preds):
        body = IfThenElse(Call("bool", "likely", (p,)), body)
    return body
