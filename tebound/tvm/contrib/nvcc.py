"""TVM's ``tvm.contrib.nvcc``: what a CUDA compute capability supports (``have_fp16``,
``have_int8``, ``have_tensorcore``, ``have_bf16``), read from its version text ("7.5"). No
CUDA compiler serves this project: ``get_cuda_version`` and ``compile_cuda`` refuse."""

from __future__ import annotations

from typing import Any


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
    """Tensor cores: from 7.0 (a target's ``arch=sm_XX`` may give the version)."""
    if compute_version is None and target is not None:
        arch = str(getattr(target, "attrs", {}).get("arch", ""))
        compute_version = f"{arch[3]}.{arch[4]}" if arch.startswith("sm_") and len(arch) >= 5 else None
    if compute_version is None:
        return False
    return parse_compute_version(compute_version)[0] >= 7


def have_bf16(compute_version: str) -> bool:
    """Bfloat16 arithmetic: from 8.0."""
    return parse_compute_version(compute_version)[0] >= 8


def get_cuda_version(cuda_path: str | None = None) -> tuple[int, int]:
    """:raises RuntimeError: always: no CUDA toolkit serves this project."""
    raise RuntimeError("nvcc: no CUDA toolkit is available to this project")


def compile_cuda(code: str, target_format: str = "ptx", arch: Any = None, options: Any = None,
                 path_target: Any = None) -> bytes:
    """:raises RuntimeError: always: no CUDA toolkit serves this project."""
    raise RuntimeError("nvcc: no CUDA toolkit is available to this project")
