"""Lowering per kind of operation, one module each, behind :class:`OperationLowering`; the
registry looks them up by the operation's class. ``loop_nest`` builds the loops of a stage
(TVM's MakeLoopNest)."""

from lower.operation.base import OperationLowering, PipelineBuilder, Steps, guard
from lower.operation.registry import lowering_of, register

__all__ = ["OperationLowering", "PipelineBuilder", "Steps", "guard", "lowering_of", "register"]
