"""TVM's ``tvm.te.schedule``: the schedule functions (``create_schedule``, ``AutoInlineInjective``,
``ScanGetBody`` ...) and TVM's two legacy steps of ``lower``, ``InferBound(s)`` (the range of
every loop, with TVM's bounds) and ``ScheduleOps(s, bounds)`` (the loop nest)."""

from typing import Any

from bound import infer_bound
from lower import schedule_ops
from lower.ir.stmt_functor import ir_transform
from schedule.base.pass_context import tvm_rules
from schedule.ir.buffer import DeclBuffer as Buffer
from schedule.ir.itervar import IterVar
from schedule.schedule import *  # noqa: F403
from schedule.schedule import __all__ as _names


def InferBound(sch: Any) -> Any:  # noqa: N802 - TVM's name
    """The range of every IterVar of *sch* (normalized first), with TVM v0.13's bounds."""
    with tvm_rules():
        return infer_bound(sch, exact=False)


def ScheduleOps(sch: Any, dom_map: Any, debug_keep_trivial_loop: bool = False) -> Any:  # noqa: N802
    """The loop nest of *sch* with the ranges *dom_map* (``InferBound``'s), TVM v0.13's bounds,
    without the produce markers TVM v0.7 dropped (``realize`` holds the loops directly)."""
    with tvm_rules():
        stmt = schedule_ops(sch, dom_map, debug_keep_trivial_loop=debug_keep_trivial_loop, exact=False)
    return ir_transform(stmt, None, lambda n: n.body, ["tir.ProducerConsumer"])


__all__ = [*_names, "Buffer", "InferBound", "IterVar", "ScheduleOps"]
