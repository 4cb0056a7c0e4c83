"""TVM's ``tvm.target``: ``Target`` and ``Target.current()``, the helpers for kinds of device,
and ``codegen`` (as a TVM without LLVM answers it)."""

from tebound.tvm.target import codegen, target
from tebound.tvm.target.target import (
    GpuSemanticsWarning,
    Target,
    TargetKind,
    arm_cpu,
    bifrost,
    create,
    cuda,
    intel_graphics,
    mali,
    rasp,
    rocm,
)

__all__ = ["GpuSemanticsWarning", "Target", "TargetKind", "arm_cpu", "bifrost", "codegen", "create", "cuda",
           "intel_graphics", "mali", "rasp", "rocm", "target"]
