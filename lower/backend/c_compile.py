"""Compiling generated C with the system compiler, caching the result, and calling it.

The shared object is named by a hash of the source, the compiler and its flags, in a user cache
directory (``$TEBOUND_CACHE_DIR``, else ``$XDG_CACHE_HOME/tebound``, else
``~/.cache/tebound``): building the same schedule twice compiles once.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from lower.backend.c_callback import CALLBACK, Callbacks, PythonCall
from lower.backend.c_stmt import ENTRY
from lower.errors import LoweringError
from schedule.dtype import is_float
from schedule.expr import Var

FLAGS = ("-O3", "-march=native", "-std=gnu11", "-fPIC", "-shared", "-fopenmp")


@cache
def find_compiler() -> str | None:
    """The C compiler: ``$CC``, else ``cc``, ``gcc`` or ``clang`` on the path; None if none."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and (path := shutil.which(name)):
            return path
    return None


def cache_dir() -> Path:
    """Where compiled kernels are kept."""
    base = os.environ.get("TEBOUND_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "tebound"


def compile_c(source: str) -> Path:
    """The shared object of *source*, compiled now or found in the cache.

    :raises LoweringError: without a compiler, or quoting the compiler's first error and the
        source line it names.
    """
    cc = find_compiler()
    if cc is None:
        raise LoweringError("build: no C compiler found (set CC, or install cc); use target='python'")
    key = hashlib.sha256("\0".join([cc, *FLAGS, source]).encode()).hexdigest()[:32]
    folder = cache_dir()
    lib = folder / f"k_{key}.so"
    if lib.exists():
        return lib
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        src = Path(tmp) / "kernel.c"
        src.write_text(source)
        out = Path(tmp) / "kernel.so"
        done = subprocess.run([cc, *FLAGS, "-o", str(out), str(src), "-lm"], capture_output=True, text=True,
                              timeout=600)
        if done.returncode != 0:
            raise LoweringError(_compile_error(done.stderr, source))
        os.replace(out, lib)  # atomic: a concurrent build finds a whole file or none
    return lib


def _compile_error(stderr: str, source: str) -> str:
    lines = source.splitlines()
    for m in re.finditer(r"kernel\.c:(\d+):\d+: (?:fatal )?error: (.*)", stderr):
        number = int(m[1])
        where = lines[number - 1].strip() if 0 < number <= len(lines) else ""
        return f"build: the C compiler refused the generated code: {m[2]} (line {number}: {where})"
    return f"build: the C compiler failed: {stderr.strip()[:2000]}"


class CKernel:
    """The compiled function, called on C-contiguous arrays and scalar values."""

    def __init__(self, lib: Path, n_buffers: int, params: Sequence[Var], calls: Sequence[PythonCall] = ()) -> None:
        self._lib = ctypes.CDLL(str(lib))
        self._fn = getattr(self._lib, ENTRY)
        self._fn.restype = ctypes.c_int32
        scalars = [_scalar_type(v.dtype) for v in params]
        self._fn.argtypes = [ctypes.c_void_p] * n_buffers + scalars + [CALLBACK]
        self._scalars = scalars
        self._callbacks = Callbacks(calls)

    def __call__(self, arrays: Sequence[np.ndarray], values: Sequence[Any]) -> None:
        """Run the kernel; an error raised by a Python function it called is raised here."""
        pointers = [a.ctypes.data for a in arrays]
        self._fn(*pointers, *(t(v) for t, v in zip(self._scalars, values)), self._callbacks.pointer)
        self._callbacks.raise_error()


def _scalar_type(dtype: str) -> Any:
    if is_float(dtype):
        return ctypes.c_float if dtype == "float32" else ctypes.c_double
    return {"int64": ctypes.c_int64, "uint64": ctypes.c_uint64, "uint32": ctypes.c_uint32,
            "bool": ctypes.c_bool}.get(dtype, ctypes.c_int32)
