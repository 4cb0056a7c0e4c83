"""TVM's automatic inlining of the simple stages of a schedule (``te.schedule.AutoInline*``),
which TOPI's generic schedules call before scheduling what is left."""

from __future__ import annotations

from typing import Any

from schedule.base.errors import ScheduleTypeError
from schedule.ir.expr import ProducerLoad, Reduce
from schedule.ir.functor import post_order_visit
from schedule.operation.compute import ComputeOp
from schedule.operation.tensor import Operation
from schedule.schedule.schedule import Schedule
from schedule.schedule.stage import AttachType, Stage


def is_elemwise(op: Operation) -> bool:
    """A compute without reduction whose every read indexes its input with the compute's own
    axes, in order (TVM's ElemWiseDetector)."""
    if not isinstance(op, ComputeOp) or op.reduce_axis or isinstance(op.body[0], Reduce):
        return False
    axes = [iv.var for iv in op.axis]
    ok = [True]

    def visit(e: Any) -> None:
        if isinstance(e, ProducerLoad) and (len(e.indices) != len(axes)
                                            or any(i is not v for i, v in zip(e.indices, axes))):
            ok[0] = False

    for body in op.body:
        post_order_visit(body, visit)
    return ok[0]


def is_broadcast(op: Operation) -> bool:
    """A compute without reduction tagged ``broadcast`` (as TOPI tags its broadcast operators)."""
    return isinstance(op, ComputeOp) and not op.reduce_axis and op.tag == "broadcast"


def is_injective(op: Operation) -> bool:
    """A compute without reduction."""
    return isinstance(op, ComputeOp) and not op.reduce_axis


def is_scheduled(stage: Stage) -> bool:
    """Whether a primitive has touched *stage* (relations, placement or loop order)."""
    return bool(stage.relations) or stage.attach_type != AttachType.GroupRoot or \
        stage.leaf_iter_vars != stage.all_iter_vars


def _auto_inline(sch: Any, pick: Any, name: str) -> None:
    if not isinstance(sch, Schedule):
        raise ScheduleTypeError(f"{name}: expected a schedule, not {type(sch).__name__}")
    for stage in list(sch.stages):
        if not stage.is_output and not is_scheduled(stage) and pick(stage.op):
            stage.compute_inline()


def AutoInlineElemWise(sch: Any) -> None:  # noqa: N802 - TVM's name
    """Inline every unscheduled, non-output element-wise stage of *sch*."""
    _auto_inline(sch, is_elemwise, "AutoInlineElemWise")


def AutoInlineBroadcast(sch: Any) -> None:  # noqa: N802 - TVM's name
    """Inline every unscheduled, non-output element-wise or broadcast stage of *sch*."""
    _auto_inline(sch, lambda op: is_elemwise(op) or is_broadcast(op), "AutoInlineBroadcast")


def AutoInlineInjective(sch: Any) -> None:  # noqa: N802 - TVM's name
    """Inline every unscheduled, non-output stage of *sch* that has no reduction."""
    _auto_inline(sch, is_injective, "AutoInlineInjective")
