"""Lowering: ScheduleOps, statement IR, printer, storage flattening (tiled layouts), execution."""

from __future__ import annotations

from lower import nd, printer  # the printer first: it gives statements their text
from lower.backend import BarrierDivergenceError, OutOfBoundsError, UnwrittenReadError
from lower.build import BuiltFunc, build
from lower.errors import LoweringError
from lower.layout import Layout
from lower.lower import LoweredFunc, lower
from lower.nd import Device, NDArray, cpu
from lower.reference import reference
from lower.schedule_ops import schedule_ops
from lower.stmt import (
    Allocate,
    AttrStmt,
    Buffer,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    Load,
    ProducerConsumer,
    Provide,
    Realize,
    SeqStmt,
    Stmt,
    Store,
)
from schedule.base.pass_context import PassContext
