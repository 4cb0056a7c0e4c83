"""TVM's ``tvm.contrib.nvcc``: what a CUDA compute capability supports (``have_fp16``,
``have_int8``, ``have_tensorcore``, ``have_bf16``), read from its version text ("7.5"), and
``compile_cuda`` to PTX through NVRTC (the cuda extra); no nvcc is run."""

from __future__ import annotations

from typing import Any

from lower.backend.cuda.nvrtc import DEFAULT_ARCH, compile_ptx, nvrtc_version
from lower.backend.nd import device


def parse_compute_version(compute_version: str) -> tuple[int, int]:
    """The (major, minor) of a compute capability such as ``"8.0"``.

    :raises ValueError: for text that is not ``major.minor``.
    """
    parts = str(compute_version).split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        raise ValueError(f"compute version {compute_version!r} is not of the form major.minor (\"7.5\")") from None


def have_fp16(compute_version: str) -> bool:
    """Half-precision arithmetic: from compute capability 5.3."""
    major, minor = parse_compute_version(compute_version)
    return major >= 6 or (major == 5 and minor >= 3)


def have_int8(compute_version: str) -> bool:
    """Int8 dot products (dp4a): from 6.1."""
    major, minor = parse_compute_version(compute_version)
    return major >= 7 or (major == 6 and minor >= 1)


def have_tensorcore(compute_version: str | None = None, target: Any = None) -> bool:
    """Tensor cores: from 7.0. Without a version, the target's ``arch=sm_XX`` gives it, else
    the present GPU's; with neither, False."""
    if compute_version is None and target is not None:
        arch = str(getattr(target, "attrs", {}).get("arch", ""))
        compute_version = f"{arch[3:-1]}.{arch[-1]}" if arch.startswith("sm_") and arch[3:].isdigit() else None
    if compute_version is None and target is None:
        compute_version = device("cuda").compute_version
    if compute_version is None:
        return False
    return parse_compute_version(compute_version)[0] >= 7


def have_bf16(compute_version: str) -> bool:
    """Bfloat16 arithmetic: from 8.0."""
    return parse_compute_version(compute_version)[0] >= 8


def get_cuda_version(cuda_path: str | None = None) -> tuple[int, int]:
    """The CUDA version of the NVRTC that compiles here, as (major, minor).

    :raises LoweringError: without the cuda extra, naming it."""
    return nvrtc_version()


def compile_cuda(code: str, target_format: str = "ptx", arch: Any = None, options: Any = None,
                 path_target: Any = None) -> bytes:
    """The PTX of the CUDA source *code* for *arch* (``"sm_80"``, or a list holding one such;
    by default the present GPU's, else sm_80), compiled by NVRTC.

    :raises ValueError: for a format other than ``"ptx"`` (no cubin or fatbin is made here).
    :raises LoweringError: without NVRTC, or quoting its log where the code does not compile.
    """
    if target_format != "ptx":
        raise ValueError(f"compile_cuda: only target_format='ptx' is made here (by NVRTC), not {target_format!r}")
    if isinstance(arch, (list, tuple)):
        arch = next((str(a).split("=")[-1] for a in arch if "sm_" in str(a)), None)
    if arch is None:
        version = device("cuda").compute_version
        arch = DEFAULT_ARCH if version is None else "sm_" + version.replace(".", "")
    ptx = compile_ptx(code, str(arch)).text.encode()
    if path_target is not None:
        with open(path_target, "wb") as f:
            f.write(ptx)
    return ptx
