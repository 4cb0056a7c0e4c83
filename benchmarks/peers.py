"""The benchmarks' schedules in Halide and TVM, for figures from the same run.

Neither is a dependency: install them in a scratch environment beside this project
(``pip install halide apache-tvm``, TVM 0.2x with its ``s_tir`` schedule). Each function
returns a callable that runs the compiled pipeline once and returns its output as a NumPy
array, or None when the peer is not installed. As in our schedules, the whole inner tile
axis is vectorized.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import numpy as np

Run = Callable[[], Any]


def _native_cpu() -> str:
    """The compiler's name for this CPU (LLVM takes the same names)."""
    out = subprocess.run(["gcc", "-march=native", "-Q", "--help=target"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == "-march=" and len(parts) > 1:
            return parts[1]
    return "generic"


def halide_blur(a: np.ndarray, out: np.ndarray, tile: int = 64, vector: int = 64) -> Run | None:
    try:
        import halide as hl
    except ImportError:
        return None
    x, y, xo, yo, xi, yi = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi"))
    inp = hl.ImageParam(hl.Float(32), 2, "A")
    bx, by = hl.Func("bx"), hl.Func("by")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    by.tile(x, y, xo, yo, xi, yi, tile, tile).parallel(yo).vectorize(xi, vector)
    bx.compute_at(by, xo).vectorize(x, vector)
    by.compile_jit()
    inp.set(hl.Buffer(a))  # Halide's x is NumPy's last axis
    result = hl.Buffer(out)
    return lambda: (by.realize(result), np.asarray(result))[1]


def halide_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray, tile: int = 32, vector: int = 32) -> Run | None:
    try:
        import halide as hl
    except ImportError:
        return None
    i, j, io, jo, ii, ji = (hl.Var(n) for n in ("i", "j", "io", "jo", "ii", "ji"))
    n = a.shape[1]
    A, B = hl.ImageParam(hl.Float(32), 2, "A"), hl.ImageParam(hl.Float(32), 2, "B")
    k = hl.RDom([(0, n)], "k")
    C = hl.Func("C")
    C[j, i] = 0.0
    C[j, i] += A[k, i] * B[j, k]
    ko, ki = hl.RVar("ko"), hl.RVar("ki")
    C.compute_root().tile(j, i, jo, io, ji, ii, tile, tile).parallel(io).vectorize(ji, vector)
    C.update().tile(j, i, jo, io, ji, ii, tile, tile).split(k, ko, ki, 4) \
        .reorder(ji, ki, ii, ko, jo, io).parallel(io).vectorize(ji, vector)
    C.compile_jit()
    A.set(hl.Buffer(a))
    B.set(hl.Buffer(b))
    result = hl.Buffer(out)
    return lambda: (C.realize(result), np.asarray(result))[1]


def _tvm() -> Any:
    try:
        import tvm
        from tvm import te
        from tvm.s_tir import Schedule
    except ImportError:
        return None
    return tvm, te, Schedule


def _tvm_compile(tvm: Any, mod: Any) -> Any:
    return tvm.compile(mod, target=tvm.target.Target({"kind": "llvm", "mcpu": _native_cpu()}))


def tvm_blur(a: np.ndarray, out: np.ndarray, tile: int = 64) -> Run | None:
    found = _tvm()
    if found is None:
        return None
    tvm, te, Schedule = found
    n = out.shape[0]
    A = te.placeholder((n + 2, n + 2), name="A")
    bx = te.compute((n + 2, n), lambda y, x: (A[y, x] + A[y, x + 1] + A[y, x + 2]) / 3, name="bx")
    by = te.compute((n, n), lambda y, x: (bx[y, x] + bx[y + 1, x] + bx[y + 2, x]) / 3, name="by")
    sch = Schedule(te.create_prim_func([A, by]))
    y, x = sch.get_loops(sch.get_sblock("by"))
    yo, yi = sch.split(y, [None, tile])
    xo, xi = sch.split(x, [None, tile])
    sch.reorder(yo, xo, yi, xi)
    sch.compute_at(sch.get_sblock("bx"), xo)
    sch.parallel(yo)
    sch.vectorize(xi)
    sch.vectorize(sch.get_loops(sch.get_sblock("bx"))[-1])
    f = _tvm_compile(tvm, sch.mod)
    dev = tvm.cpu()
    ta, tout = tvm.runtime.tensor(a, dev), tvm.runtime.tensor(out, dev)
    return lambda: (f(ta, tout), tout)[1]


def tvm_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray, tile: int = 32) -> Run | None:
    found = _tvm()
    if found is None:
        return None
    tvm, te, Schedule = found
    n = a.shape[0]
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    sch = Schedule(te.create_prim_func([A, B, C]))
    block = sch.get_sblock("C")
    i, j, kk = sch.get_loops(block)
    io, ii = sch.split(i, [None, tile])
    jo, ji = sch.split(j, [None, tile])
    ko, ki = sch.split(kk, [None, 4])
    sch.reorder(io, jo, ko, ii, ki, ji)
    sch.parallel(io)
    sch.vectorize(ji)
    sch.decompose_reduction(block, ko)
    f = _tvm_compile(tvm, sch.mod)
    dev = tvm.cpu()
    ta, tb, tout = tvm.runtime.tensor(a, dev), tvm.runtime.tensor(b, dev), tvm.runtime.tensor(out, dev)
    return lambda: (f(ta, tb, tout), tout)[1]
