"""TVM's ``topi.x86.conv2d_avx_common``: the fallback tiles of a conv2d's NCHWc schedule."""

from topi.x86.fallback import fallback_schedule as _fallback_schedule

__all__ = ["_fallback_schedule"]
