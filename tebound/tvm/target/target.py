"""TVM's ``tvm.target.target``: ``Target`` and the helpers that make one for a kind of device
(``cuda()``, ``arm_cpu()``, ...); every kind runs on this machine (see :mod:`lower.target`)."""

from __future__ import annotations

import warnings
from typing import Any

from lower.target import GpuSemanticsWarning, Target, TargetKind


def create(target: Any) -> Target:
    """``Target(target)``, under the name TVM kept for it (deprecated there, and here)."""
    warnings.warn("tvm.target.create() is deprecated; use tvm.target.Target() instead", DeprecationWarning,
                  stacklevel=2)
    return Target(target)


def _make(kind: str, words: list[str], options: Any) -> Target:
    extra = options.split() if isinstance(options, str) else list(options or [])
    return Target(" ".join([kind, *words, *extra]))


def cuda(model: str = "unknown", arch: str | None = None, options: Any = None) -> Target:
    """An NVIDIA GPU target (``cuda -model=...``, and ``-arch=sm_XX`` when given)."""
    return _make("cuda", ([f"-arch={arch}"] if arch else []) + [f"-model={model}"], options)


def rocm(model: str = "unknown", options: Any = None) -> Target:
    """An AMD GPU target."""
    return _make("rocm", [f"-model={model}"], options)


def mali(model: str = "unknown", options: Any = None) -> Target:
    """An Arm Mali GPU target (OpenCL)."""
    return _make("opencl", ["-device=mali", f"-model={model}"], options)


def bifrost(model: str = "unknown", options: Any = None) -> Target:
    """An Arm Bifrost GPU target (OpenCL)."""
    return _make("opencl", ["-device=bifrost", f"-model={model}"], options)


def intel_graphics(model: str = "unknown", options: Any = None) -> Target:
    """An Intel GPU target (OpenCL)."""
    return _make("opencl", ["-device=intel_graphics", f"-model={model}", "-thread_warp_size=16"], options)


def arm_cpu(model: str = "unknown", options: Any = None) -> Target:
    """An Arm CPU target (``llvm -device=arm_cpu``)."""
    return _make("llvm", ["-device=arm_cpu", f"-model={model}"], options)


def rasp(options: Any = None) -> Target:
    """A Raspberry Pi 3B (an Arm CPU)."""
    return arm_cpu("bcm2837", options)


__all__ = ["GpuSemanticsWarning", "Target", "TargetKind", "arm_cpu", "bifrost", "create", "cuda",
           "intel_graphics", "mali", "rasp", "rocm"]
