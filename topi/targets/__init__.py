"""TVM's schedule tables for targets this project has no schedules of its own for (``topi.hls``,
``topi.gpu``, ``topi.mali``, ``topi.bifrost``, ``topi.arm_cpu``, ``topi.intel_graphics``): their
computes are the generic ones of ``topi.nn`` and their schedules the generic ones (under a GPU
target, the CUDA ones), as TVM's generic functions fall back for a target they do not serve."""

from topi.targets import arm_cpu, bifrost, gpu, hls, intel_graphics, mali

__all__ = ["arm_cpu", "bifrost", "gpu", "hls", "intel_graphics", "mali"]
