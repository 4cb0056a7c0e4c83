"""The tiles TVM's x86 convolutions fall back to when no tuned configuration is known: output
channels in blocks of at most one vector, input channels in blocks no larger, and output
columns in register blocks of at most 31, each the largest that divides its extent."""

from __future__ import annotations

from typing import Any

from lower.target import Target

# The -mcpu values whose vectors hold 16 or 8 floats; any other CPU is taken to hold 4.
_AVX512 = ("skylake-avx512", "cascadelake", "icelake-client", "icelake-server", "cooperlake", "tigerlake",
           "sapphirerapids", "znver4")
_AVX2 = ("haswell", "broadwell", "skylake", "core-avx2", "znver1", "znver2", "znver3", "alderlake")


def simd_32bit_lanes(target: Target | None = None) -> int:
    """The floats in one vector of the current (or given) target's CPU, by its ``-mcpu``."""
    target = target or Target.current(allow_none=True)
    mcpu = target.mcpu if target is not None else ""
    return 16 if mcpu in _AVX512 else 8 if mcpu in _AVX2 else 4


def _largest_divisor(n: int, limit: int) -> int:
    return next(d for d in range(max(1, min(limit, n)), 0, -1) if n % d == 0)


def fallback_tiles(wkl: Any) -> dict[str, Any]:
    """The fallback knobs of the conv2d or depthwise workload *wkl* (``tile_ic``, ``tile_oc``,
    ``tile_ow`` as split lengths, outer first; ``unroll_kw`` off)."""
    span_w = (wkl.kernel_w - 1) * wkl.dilation_w + 1
    out_width = (wkl.width + wkl.padl + wkl.padr - span_w) // wkl.stride_w + 1
    oc_bn = _largest_divisor(wkl.out_filter, simd_32bit_lanes())
    ic_bn = _largest_divisor(wkl.in_filter, oc_bn)
    reg_n = _largest_divisor(out_width, 31)
    return {"tile_ic": [wkl.in_filter // ic_bn, ic_bn], "tile_oc": [wkl.out_filter // oc_bn, oc_bn],
            "tile_ow": [out_width // reg_n, reg_n], "unroll_kw": False}


def fallback_schedule(cfg: Any, wkl: Any) -> None:
    """Sets the fallback knobs of *wkl* on the autotvm configuration *cfg*."""
    for name, value in fallback_tiles(wkl).items():
        cfg[name] = value
