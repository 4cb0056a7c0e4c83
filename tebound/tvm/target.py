"""TVM's ``tvm.target``: ``Target`` and ``Target.current()``; every kind runs on this machine
(see :mod:`lower.target`)."""

from lower.target import GpuSemanticsWarning, Target, TargetKind

__all__ = ["GpuSemanticsWarning", "Target", "TargetKind"]
