"""Lowering: ScheduleOps, statement IR, printer, storage flattening (tiled layouts), execution."""

from __future__ import annotations

from typing import Any

# The face of lower.ir gives statements their text when first imported.
from lower.backend import BarrierDivergenceError, OutOfBoundsError, UnwrittenReadError, nd
from lower.backend.nd import Device, NDArray, cpu
from lower.build import BuiltFunc, build, load_module
from lower.errors import LoweringError, OutsideReadWarning
from lower.ir import printer  # noqa: F401
from lower.ir.stmt import (
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
from lower.layout.layout import Layout
from lower.lower import LoweredFunc, lower
from lower.passes.schedule_ops import schedule_ops
from lower.reference import reference
from schedule.base import moved
from schedule.base.pass_context import PassContext


def __getattr__(name: str) -> Any:
    """The modules that moved into rooms, under their old names (``lower.stmt`` ...)."""
    return moved.old_submodule("lower", name)
