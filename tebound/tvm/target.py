"""TVM's ``tvm.target``: ``Target`` and ``Target.current()``; every kind runs on this machine
(see :mod:`lower.target`)."""

import warnings
from typing import Any

from lower.target import GpuSemanticsWarning, Target, TargetKind


def create(target: Any) -> Target:
    """``Target(target)``, under the name TVM kept for it (deprecated there, and here)."""
    warnings.warn("tvm.target.create() is deprecated; use tvm.target.Target() instead", DeprecationWarning,
                  stacklevel=2)
    return Target(target)


__all__ = ["GpuSemanticsWarning", "Target", "TargetKind", "create"]
