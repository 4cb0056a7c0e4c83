"""CUDA C to PTX with NVRTC, which runs on any machine (no GPU needed).

NVRTC comes from the optional ``cuda`` extra (``pip install 'tebound[cuda]'``: the packages
``nvidia-cuda-nvrtc``, ``cuda-bindings``, ``nvidia-cuda-runtime`` for the float16 header, and
``nvidia-cuda-crt`` for the tensor-core header ``mma.h``).
Without it, CUDA source is still written; only compiling it says which extra to install.
"""

from __future__ import annotations

import functools
import importlib
import os
from dataclasses import dataclass
from typing import Any

from lower.errors import LoweringError

#: The architecture PTX is written for when no GPU is present and the target names none.
DEFAULT_ARCH = "sm_80"
_EXTRA = "pip install 'tebound[cuda]' (nvidia-cuda-nvrtc, cuda-bindings, nvidia-cuda-runtime, nvidia-cuda-crt)"


@dataclass(frozen=True)
class Ptx:
    """What NVRTC made of a source: the PTX text, and its log (warnings), empty when clean."""

    text: str
    log: str
    arch: str


@functools.cache
def _nvrtc() -> Any | None:
    try:
        return importlib.import_module("cuda.bindings.nvrtc")
    except ImportError:
        return None


def available() -> bool:
    """Whether NVRTC can be loaded here."""
    return _nvrtc() is not None


def compile_ptx(source: str, arch: str = DEFAULT_ARCH, name: str = "kernel.cu", syntax_only: bool = False,
                include: tuple[str, ...] = ()) -> Ptx:
    """The PTX of *source* for *arch* (``sm_80``: compute capability 8.0); with *syntax_only*,
    only NVRTC's front end runs (its errors and warnings, no PTX: a sixth of the time).
    *include* adds header folders after CUDA's own.

    :raises LoweringError: without NVRTC (naming the extra to install), or quoting NVRTC's log
        when the source does not compile.
    """
    nvrtc = _nvrtc()
    if nvrtc is None:
        raise LoweringError(f"build: compiling CUDA needs NVRTC, which is not installed; {_EXTRA}")
    if not arch.startswith("sm_") or not arch[3:].isdigit():
        raise ValueError(f"build: arch must be like 'sm_80', not {arch!r}")
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    _check(nvrtc, err, "nvrtcCreateProgram")
    try:
        options = [f"--gpu-architecture=compute_{arch[3:]}".encode(), b"-default-device", b"--std=c++17",
                   *(f"-I{d}".encode() for d in (*header_dirs(), *include)),
                   *([b"--fdevice-syntax-only"] if syntax_only else [])]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(options), options)
        log = _log(nvrtc, prog)
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise LoweringError(f"build: NVRTC could not compile the CUDA source:\n{log}")
        if syntax_only:
            return Ptx("", log, arch)
        err, size = nvrtc.nvrtcGetPTXSize(prog)
        _check(nvrtc, err, "nvrtcGetPTXSize")
        buf = b" " * size
        (err,) = nvrtc.nvrtcGetPTX(prog, buf)
        _check(nvrtc, err, "nvrtcGetPTX")
        return Ptx(buf.rstrip(b"\x00").decode(), log, arch)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def nvrtc_version() -> tuple[int, int]:
    """The CUDA version of the NVRTC here, as (major, minor).

    :raises LoweringError: without NVRTC, naming the extra to install."""
    nvrtc = _nvrtc()
    if nvrtc is None:
        raise LoweringError(f"NVRTC is not installed; {_EXTRA}")
    err, major, minor = nvrtc.nvrtcVersion()
    _check(nvrtc, err, "nvrtcVersion")
    return int(major), int(minor)


@functools.cache
def header_dirs() -> list[str]:
    """The folder of CUDA's headers NVRTC is given: from NVIDIA's wheels (``cuda_fp16.h``
    comes with ``nvidia-cuda-runtime``, ``crt/mma.h`` with ``nvidia-cuda-crt``), else a CUDA
    toolkit's (``$CUDA_HOME``, ``/usr/local/cuda``). One folder that holds both is preferred,
    so that the headers come from one release; NVRTC itself brings none."""
    candidates = []
    try:
        nvidia = importlib.import_module("nvidia")
    except ImportError:
        nvidia = None
    for root in getattr(nvidia, "__path__", []):
        for sub in sorted(os.listdir(root)) if os.path.isdir(root) else []:
            candidates.append(os.path.join(root, sub, "include"))
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            candidates.append(os.path.join(home, "include"))
    with_half = [d for d in candidates if os.path.isfile(os.path.join(d, "cuda_fp16.h"))]
    complete = [d for d in with_half if os.path.isfile(os.path.join(d, "crt", "mma.h"))]
    return (complete or with_half)[:1]


def _log(nvrtc: Any, prog: Any) -> str:
    err, size = nvrtc.nvrtcGetProgramLogSize(prog)
    _check(nvrtc, err, "nvrtcGetProgramLogSize")
    buf = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, buf)
    return buf.rstrip(b"\x00").decode(errors="replace").strip()


def _check(nvrtc: Any, err: Any, what: str) -> None:
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise LoweringError(f"build: NVRTC failed in {what}: {err}")
