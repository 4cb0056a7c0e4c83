"""TVM's ``tvm.contrib.clang.create_llvm``: TVM compiles C/C++ into LLVM IR that a kernel imports
(``pragma("import_llvm", ...)``). Here kernels are C, so the code is compiled by the system's C++
compiler into a shared library, and each function it declares ``extern "C"`` is registered as a
global function that calls it natively (``te.register_func``): both targets then call it from a
kernel's ``call_extern``, with the arrays a buffer's ``access_ptr`` reaches. What is returned, and
written to *output*, is the source itself (there is no LLVM IR), which the pragma carries."""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from schedule import register_func

_DECL = re.compile(r'extern\s+"C"\s+(?P<ret>[A-Za-z_][\w\s]*?\**)\s*(?P<name>[A-Za-z_]\w*)\s*\((?P<params>[^)]*)\)')
_SCALARS = {"int": ctypes.c_int, "int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64, "long": ctypes.c_long,
            "unsigned": ctypes.c_uint, "float": ctypes.c_float, "double": ctypes.c_double}
_LIBRARIES: dict[str, ctypes.CDLL] = {}  # kept loaded for as long as the process runs


class NativeSource(str):
    """C/C++ source that :func:`create_llvm` compiled; its functions are registered."""


def _ctype(text: str, where: str) -> Any:
    """The ctypes type of a C parameter or return type (any pointer is an address)."""
    words = text.replace("const", " ").split()
    if "*" in text:
        return ctypes.c_void_p
    if not words or words == ["void"]:
        return None
    base = " ".join(w for w in words if w not in ("signed",))
    if base not in _SCALARS:
        raise ValueError(f"clang.create_llvm: {where} has type {text.strip()!r}; use pointers, int, int32_t, "
                         f"int64_t, long, float or double")
    return _SCALARS[base]


def _param_type(param: str, where: str) -> Any:
    param = param.strip()
    name = re.search(r"[A-Za-z_]\w*\s*$", param)
    kind = param[:name.start()] if name and ("*" in param or len(param.split()) > 1) else param
    return _ctype(kind, where)


def _wrapper(name: str, fn: Any, params: Sequence[Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        if len(args) != len(params):
            raise TypeError(f"{name}: takes {len(params)} arguments, {len(args)} given")
        values = []
        for k, (a, kind) in enumerate(zip(args, params)):
            if kind is ctypes.c_void_p:
                if not isinstance(a, np.ndarray):
                    raise TypeError(f"{name}: argument {k} is a pointer; pass an array (a buffer's access_ptr)")
                values.append(ctypes.c_void_p(a.ctypes.data))
            else:
                values.append(kind(a))
        return fn(*values)
    call.__name__ = name
    return call


def create_llvm(inputs: str | Sequence[str], output: str | None = None, options: Sequence[str] | None = None,
                cc: str | None = None) -> NativeSource:
    """Compile the C/C++ source *inputs* (text, or a list of texts and file paths) and register
    each of its ``extern "C"`` functions under its name; the source, written to *output* too.

    :raises RuntimeError: when no C++ compiler is found or the code does not compile.
    :raises ValueError: for a declared function with a parameter type ctypes cannot pass.
    """
    texts = [inputs] if isinstance(inputs, str) else list(inputs)
    code = "\n".join(open(t).read() if os.path.isfile(t) else t for t in texts)
    compiler = cc or shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if compiler is None:
        raise RuntimeError("clang.create_llvm: no C++ compiler (c++, g++ or clang++) is on the path")
    key = hashlib.sha256((compiler + "\0" + " ".join(options or []) + "\0" + code).encode()).hexdigest()[:16]
    if key not in _LIBRARIES:
        folder = tempfile.mkdtemp(prefix="tebound_native_")
        src, lib = os.path.join(folder, "code.cc"), os.path.join(folder, f"code_{key}.so")
        with open(src, "w") as fh:
            fh.write(code)
        done = subprocess.run([compiler, "-O2", "-fPIC", "-shared", *(options or []), "-o", lib, src],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"clang.create_llvm: the code does not compile:\n{done.stderr.strip()}")
        _LIBRARIES[key] = ctypes.CDLL(lib)
    library = _LIBRARIES[key]
    for m in _DECL.finditer(code):
        name = m.group("name")
        params = [p for p in m.group("params").split(",") if p.strip() and p.strip() != "void"]
        fn = getattr(library, name)
        fn.restype = _ctype(m.group("ret"), f"the result of {name}")
        kinds = [_param_type(p, f"parameter {k} of {name}") for k, p in enumerate(params)]
        fn.argtypes = kinds
        register_func(name, _wrapper(name, fn, kinds), override=True)
    if output is not None:
        with open(output, "w") as fh:
            fh.write(code)
    return NativeSource(code)
