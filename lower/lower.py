"""``lower``: ScheduleOps, storage flattening and simplification, as TVM's ``lower`` in simple mode."""

from __future__ import annotations

from collections.abc import Sequence

from lower.flatten import arg_buffers, flatten, layout_of
from lower.schedule_ops import build_pipeline, inferred
from lower.simplify_stmt import simplify_stmt
from lower.stmt import Buffer, Stmt
from schedule.normalize import tensor_map
from schedule.schedule import Schedule
from schedule.tensor import Tensor


class LoweredFunc:
    """A lowered function: its argument buffers and body; ``str()`` is the body's text."""

    def __init__(self, args: list[Tensor], buffers: dict[Tensor, Buffer], body: Stmt, exact: bool,
                 layouts: dict | None = None) -> None:
        self.args = args
        self.buffers = buffers
        self.body = body
        self.exact = exact
        self.layouts = layouts or {}

    def __str__(self) -> str:
        return str(self.body)


def lower(s: Schedule, args: Sequence[Tensor], *, simple_mode: bool = True, exact: bool = True,
          debug_keep_trivial_loop: bool = False) -> LoweredFunc:
    """The flattened, simplified loop nests of *s*, reading and writing the tensors in *args*.

    :arg simple_mode: accepted for TVM compatibility; the result is always the statement form.
    :raises LoweringError: if the schedule cannot be lowered (naming the stage or tensor).
    """
    args = list(args)
    user_stages = {st.op: st for st in s.stages}
    layouts = {t: lay for t in args if (lay := layout_of(user_stages.get(t.op), t)) is not None}
    buffers = arg_buffers(args, layouts)
    sn = s.normalize()
    renamed = tensor_map(s, sn)
    bounds = inferred(sn, exact)
    body = build_pipeline(sn, bounds, debug_keep_trivial_loop, exact)
    body = flatten(body, sn, {renamed.get(t, t): b for t, b in buffers.items()})
    body = simplify_stmt(body, keep_trivial=debug_keep_trivial_loop)
    return LoweredFunc(args, buffers, body, exact, layouts)
