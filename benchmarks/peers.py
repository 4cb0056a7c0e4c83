"""The benchmarks' schedules in Halide and TVM, for figures from the same run.

Neither is a dependency: install them in a scratch environment beside this project
(``pip install halide apache-tvm``, TVM 0.2x with its ``s_tir`` schedule). Each function
returns a callable that runs the compiled pipeline once and returns its output as a NumPy
array, or None when the peer is not installed. As in our schedules, the whole inner tile
axis is vectorized.
"""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Callable
from typing import Any

import numpy as np

Run = Callable[[], Any]


def _native_options() -> list[list[str]]:
    """``gcc -march=native -Q --help=target``, a line's words each (this file runs in the peers'
    environments, without the project's ``lower.backend.c.compile``)."""
    out = subprocess.run(["gcc", "-march=native", "-Q", "--help=target"], capture_output=True, text=True).stdout
    return [line.split() for line in out.splitlines()]


def native_cpu() -> str:
    """The compiler's name for this CPU (LLVM takes the same names); ``$PEER_CPU`` wins (say
    ``znver3`` on a Zen 4, with a ``gcc`` on the path that adds ``-mno-avx512f``: every peer
    then compiles for AVX2 on an AVX-512 machine)."""
    if os.environ.get("PEER_CPU"):
        return os.environ["PEER_CPU"]
    return next((parts[1] for parts in _native_options() if len(parts) > 1 and parts[0] == "-march="), "generic")


#: Halide's names of the x86 features the compiler reports (``-m<flag>`` enabled).
HALIDE_FEATURES = (("sse4.1", "sse41"), ("avx", "avx"), ("avx2", "avx2"), ("fma", "fma"), ("f16c", "f16c"))


def halide_target() -> Any:
    """Halide's JIT target for this CPU, from the compiler's view of it (``HL_JIT_TARGET``
    wins): Halide's own host detection goes by the CPU model and takes a Zen 4 whose AVX-512 the
    hypervisor hides for one that has it, and its code then stops on an illegal instruction."""
    import halide as hl
    if os.environ.get("HL_JIT_TARGET") or platform.machine() not in ("x86_64", "AMD64"):
        return hl.get_jit_target_from_environment()
    enabled = {parts[0][2:] for parts in _native_options()
               if len(parts) >= 2 and parts[-1] == "[enabled]" and parts[0].startswith("-m")}
    if "avx512f" in enabled:  # a CPU that has it: Halide's detection is right there
        return hl.get_jit_target_from_environment()
    return hl.Target("-".join(["x86-64-linux", *(name for flag, name in HALIDE_FEATURES if flag in enabled)]))


def halide_blur(a: np.ndarray, out: np.ndarray, tile: int = 64, vector: int = 64,
                rows: int | None = None) -> Run | None:
    try:
        import halide as hl
    except ImportError:
        return None
    x, y, xo, yo, xi, yi = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi"))
    inp = hl.ImageParam(hl.Float(32), 2, "A")
    bx, by = hl.Func("bx"), hl.Func("by")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    by.tile(x, y, xo, yo, xi, yi, tile, rows or tile).parallel(yo).vectorize(xi, vector)
    bx.compute_at(by, xo).vectorize(x, vector)
    by.compile_jit(halide_target())
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
    C.compile_jit(halide_target())
    A.set(hl.Buffer(a))
    B.set(hl.Buffer(b))
    result = hl.Buffer(out)
    return lambda: (C.realize(result), np.asarray(result))[1]


def tvm_threads() -> None:
    """Lets TVM's runtime use every core, as a user timing it would: its thread pool takes
    ``TVM_NUM_THREADS``, else its own count of physical cores, which is 1 on a 2-vCPU VM
    (the blur 4.3 ms on one thread, 1.6 on two). Call it before TVM is imported."""
    os.environ.setdefault("TVM_NUM_THREADS", str(os.cpu_count() or 1))


def _tvm() -> Any:
    tvm_threads()
    try:
        import tvm
        from tvm import te
        from tvm.s_tir import Schedule
    except ImportError:
        return None
    return tvm, te, Schedule


def _tvm_compile(tvm: Any, mod: Any) -> Any:
    return tvm.compile(mod, target=tvm.target.Target({"kind": "llvm", "mcpu": native_cpu()}))


def tvm_blur(a: np.ndarray, out: np.ndarray, tile: int = 64, rows: int | None = None,
             default: bool = False) -> Run | None:
    found = _tvm()
    if found is None:
        return None
    tvm, te, Schedule = found
    n = out.shape[0]
    A = te.placeholder((n + 2, n + 2), name="A")
    bx = te.compute((n + 2, n), lambda y, x: (A[y, x] + A[y, x + 1] + A[y, x + 2]) / 3, name="bx")
    by = te.compute((n, n), lambda y, x: (bx[y, x] + bx[y + 1, x] + bx[y + 2, x]) / 3, name="by")
    sch = Schedule(te.create_prim_func([A, by]))
    if not default:  # TVM's default schedule: the compute as written
        y, x = sch.get_loops(sch.get_sblock("by"))
        yo, yi = sch.split(y, [None, rows or tile])
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


def tvm_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray, tile: int = 32, default: bool = False) -> Run | None:
    found = _tvm()
    if found is None:
        return None
    tvm, te, Schedule = found
    n = a.shape[0]
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    sch = Schedule(te.create_prim_func([A, B, C]))
    if not default:  # TVM's default schedule: the compute as written
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


def halide_matmul_packed(a: np.ndarray, b: np.ndarray, out: np.ndarray, rows: int = 8, cols: int = 16) -> Run | None:
    try:
        import halide as hl
    except ImportError:
        return None
    i, j, io, jo, ii, ji, jp, kk = (hl.Var(n) for n in ("i", "j", "io", "jo", "ii", "ji", "jp", "kk"))
    n = a.shape[1]
    A, B = hl.ImageParam(hl.Float(32), 2, "A"), hl.ImageParam(hl.Float(32), 2, "B")
    k = hl.RDom([(0, n)], "k")
    P, acc, C = hl.Func("P"), hl.Func("acc"), hl.Func("C")
    P[ji, kk, jp] = B[jp * cols + ji, kk]  # column panels of B
    acc[j, i] = 0.0
    acc[j, i] += A[k, i] * P[j % cols, k, j // cols]
    C[j, i] = acc[j, i]
    C.tile(j, i, jo, io, ji, ii, cols, rows).parallel(io).vectorize(ji)
    acc.compute_at(C, jo).vectorize(j).unroll(i)
    acc.update().reorder(j, i, k).vectorize(j).unroll(i)
    P.compute_root().parallel(jp).vectorize(ji)
    C.compile_jit(halide_target())
    A.set(hl.Buffer(a))
    B.set(hl.Buffer(b))
    result = hl.Buffer(out)
    return lambda: (C.realize(result), np.asarray(result))[1]


def tvm_matmul_packed(a: np.ndarray, b: np.ndarray, out: np.ndarray, rows: int = 8, cols: int = 16) -> Run | None:
    found = _tvm()
    if found is None:
        return None
    tvm, te, Schedule = found
    n = a.shape[0]
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    P = te.compute((n // cols, n, cols), lambda jo, kk, ji: B[kk, jo * cols + ji], name="P")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * P[j // cols, k, j % cols], axis=k), name="C")
    sch = Schedule(te.create_prim_func([A, B, C]))
    block = sch.get_sblock("C")
    local = sch.cache_write(block, 0, "local")
    i, j, kk = sch.get_loops(block)
    io, ii = sch.split(i, [None, rows])
    jo, ji = sch.split(j, [None, cols])
    sch.reorder(io, jo, kk, ii, ji)
    sch.reverse_compute_at(local, jo)
    sch.unroll(ii)
    sch.vectorize(ji)
    sch.parallel(io)  # TVM checks parallel and vectorize on the reduction before its init is split off
    init = sch.decompose_reduction(block, kk)
    sch.vectorize(sch.get_loops(init)[-1])
    sch.vectorize(sch.get_loops(local)[-1])
    pj, _, pi = sch.get_loops(sch.get_sblock("P"))
    sch.parallel(pj)
    sch.vectorize(pi)
    f = _tvm_compile(tvm, sch.mod)
    dev = tvm.cpu()
    ta, tb, tout = tvm.runtime.tensor(a, dev), tvm.runtime.tensor(b, dev), tvm.runtime.tensor(out, dev)
    return lambda: (f(ta, tb, tout), tout)[1]


def halide_conv2d(d: np.ndarray, w: np.ndarray, out: np.ndarray) -> Run | None:
    """Our conv2d schedule: padding at the root (channels parallel), output channels by 8 and x
    by 8, (ko, y) fused and parallel, an accumulator at the x tile with the reduction
    outermost, the channel unrolled and x vectorized."""
    try:
        import halide as hl
    except ImportError:
        return None
    _, c, n, _ = d.shape
    x, y, f, b, xo, xi, fo, fi, t = (hl.Var(v) for v in ("x", "y", "f", "b", "xo", "xi", "fo", "fi", "t"))
    D = hl.ImageParam(hl.Float(32), 4, "data")
    W = hl.ImageParam(hl.Float(32), 4, "weight")
    r = hl.RDom([(0, 3), (0, 3), (0, c)], "r")
    pad, acc, out_f = hl.Func("pad"), hl.Func("acc"), hl.Func("conv")
    inside = hl.BoundaryConditions.constant_exterior(D, 0.0, [(0, n), (0, n), (0, c), (0, 1)])
    pad[x, y, f, b] = inside[x - 1, y - 1, f, b]
    acc[x, y, f, b] = 0.0
    acc[x, y, f, b] += pad[x + r.x, y + r.y, r.z, b] * W[r.x, r.y, r.z, f]
    out_f[x, y, f, b] = acc[x, y, f, b]
    out_f.split(f, fo, fi, 8).split(x, xo, xi, 8).reorder(xi, fi, xo, y, fo, b).fuse(y, fo, t).parallel(t).vectorize(xi)
    acc.compute_at(out_f, xo).vectorize(x).unroll(f)
    acc.update().reorder(x, f, r.x, r.y, r.z).vectorize(x).unroll(f)
    pad.compute_root().parallel(f)
    out_f.compile_jit(halide_target())
    D.set(hl.Buffer(d))
    W.set(hl.Buffer(w))
    result = hl.Buffer(out)
    return lambda: (out_f.realize(result), np.asarray(result))[1]


def tvm_conv2d(d: np.ndarray, w: np.ndarray, out: np.ndarray, default: bool = False) -> Run | None:
    found = _tvm()
    if found is None:
        return None
    tvm, te, Schedule = found
    _, c, n, _ = d.shape
    kout = w.shape[0]
    data = te.placeholder(d.shape, name="data")
    weight = te.placeholder(w.shape, name="weight")
    pad = te.compute((1, c, n + 2, n + 2), lambda bb, ch, yy, xx: te.if_then_else(
        te.all(yy >= 1, yy <= n, xx >= 1, xx <= n), data[bb, ch, yy - 1, xx - 1], te.const(0.0)), name="pad")
    rc, ry, rx = te.reduce_axis((0, c), "rc"), te.reduce_axis((0, 3), "ry"), te.reduce_axis((0, 3), "rx")
    conv = te.compute((1, kout, n, n), lambda bb, ff, yy, xx: te.sum(
        pad[bb, rc, yy + ry, xx + rx] * weight[ff, rc, ry, rx], axis=[rc, ry, rx]), name="conv")
    sch = Schedule(te.create_prim_func([data, weight, conv]))
    if not default:  # TVM's default schedule: the compute as written
        sch.parallel(sch.get_loops(sch.get_sblock("pad"))[1])
        block = sch.get_sblock("conv")
        local = sch.cache_write(block, 0, "local")
        bb, ff, yy, xx, rcl, ryl, rxl = sch.get_loops(block)
        fo, fi = sch.split(ff, [None, 8])
        xo, xi = sch.split(xx, [None, 8])
        sch.reorder(bb, fo, yy, xo, rcl, ryl, rxl, fi, xi)
        sch.reverse_compute_at(local, xo)
        sch.unroll(fi)
        sch.vectorize(xi)
        sch.parallel(sch.fuse(fo, yy))
        init = sch.decompose_reduction(block, rcl)
        sch.vectorize(sch.get_loops(init)[-1])
        sch.vectorize(sch.get_loops(local)[-1])
    f = _tvm_compile(tvm, sch.mod)
    dev = tvm.cpu()
    td, tw, tout = tvm.runtime.tensor(d, dev), tvm.runtime.tensor(w, dev), tvm.runtime.tensor(out, dev)
    return lambda: (f(td, tw, tout), tout)[1]


def halide_softmax(a: np.ndarray, out: np.ndarray, fast: bool = False) -> Run | None:
    """Rows parallel; max, exp and sum at the row; element-wise loops vectorized (8 lanes)."""
    try:
        import halide as hl
    except ImportError:
        return None
    rows, cols = a.shape
    i, j = hl.Var("i"), hl.Var("j")
    X = hl.ImageParam(hl.Float(32), 2, "x")
    k = hl.RDom([(0, cols)], "k")
    mx, ex, sm, o = hl.Func("mx"), hl.Func("ex"), hl.Func("sm"), hl.Func("out")
    mx[i] = hl.maximum(X[k, i])
    ex[j, i] = (hl.fast_exp if fast else hl.exp)(X[j, i] - mx[i])
    sm[i] = hl.sum(ex[k, i])
    o[j, i] = ex[j, i] / sm[i]
    o.parallel(i).vectorize(j, 8)
    mx.compute_at(o, i)
    ex.compute_at(o, i).vectorize(j, 8)
    sm.compute_at(o, i)
    o.compile_jit(halide_target())
    X.set(hl.Buffer(a))
    result = hl.Buffer(out)
    return lambda: (o.realize(result), np.asarray(result))[1]


def _tvm_softmax(shape: tuple[int, int], fast: bool, reciprocal: bool = False, default: bool = False) -> Any:
    """TVM's row softmax (topi.fast_exp or te.exp) as an s_tir schedule with the subtraction
    inlined and the output's rows parallel, its columns vectorized; and the row loop."""
    tvm, te, Schedule = _tvm()
    from tvm import topi

    rows, cols = shape
    x = te.placeholder((rows, cols), name="x")
    k1, k2 = te.reduce_axis((0, cols), "k1"), te.reduce_axis((0, cols), "k2")
    mx = te.compute((rows,), lambda r: te.max(x[r, k1], axis=k1), name="mx")
    shifted = te.compute((rows, cols), lambda r, c: x[r, c] - mx[r], name="shifted")
    ex = topi.fast_exp(shifted) if fast else te.compute((rows, cols), lambda r, c: te.exp(shifted[r, c]), name="ex")
    sm = te.compute((rows,), lambda r: te.sum(ex[r, k2], axis=k2), name="sm")
    if reciprocal:
        inv = te.compute((rows,), lambda r: 1.0 / sm[r], name="inv")
        o = te.compute((rows, cols), lambda r, c: ex[r, c] * inv[r], name="out")
    else:
        o = te.compute((rows, cols), lambda r, c: ex[r, c] / sm[r], name="out")
    sch = Schedule(te.create_prim_func([x, o]))
    if default:  # TVM's default schedule: the compute as written
        return sch, None
    sch.compute_inline(sch.get_sblock("shifted"))
    r, c = sch.get_loops(sch.get_sblock("out"))
    sch.parallel(r)
    sch.vectorize(c)
    return sch, r


def _tvm_run(sch: Any, a: np.ndarray, out: np.ndarray) -> Run:
    tvm = _tvm()[0]
    f = _tvm_compile(tvm, sch.mod)
    dev = tvm.cpu()
    ta, tout = tvm.runtime.tensor(a, dev), tvm.runtime.tensor(out, dev)
    return lambda: (f(ta, tout), tout)[1]


def tvm_softmax(a: np.ndarray, out: np.ndarray, fast: bool = False) -> Run | None:
    if _tvm() is None:
        return None
    sch, r = _tvm_softmax(a.shape, fast)
    ex_block = sch.get_producers(sch.get_sblock("sm"))[0]
    sch.compute_at(sch.get_sblock("sm"), r)
    sch.compute_at(ex_block, r)
    sch.compute_at(sch.get_sblock("mx"), r)
    sch.vectorize(sch.get_loops(ex_block)[-1])
    return _tvm_run(sch, a, out)


def halide_softmax_rfactor(a: np.ndarray, out: np.ndarray, lanes: int = 8, reciprocal: bool = False) -> Run | None:
    """halide_softmax with fast_exp, its max and sum split into *lanes* partial results reduced
    in a vector loop (rfactor), then combined; with *reciprocal*, rows times 1 / sum."""
    try:
        import halide as hl
    except ImportError:
        return None
    rows, cols = a.shape
    i, j, u = hl.Var("i"), hl.Var("j"), hl.Var("u")
    X = hl.ImageParam(hl.Float(32), 2, "x")
    k = hl.RDom([(0, cols)], "k")
    mx, ex, sm, o = hl.Func("mx"), hl.Func("ex"), hl.Func("sm"), hl.Func("out")
    mx[i] = hl.Float(32).min()
    mx[i] = hl.max(mx[i], X[k, i])
    ex[j, i] = hl.fast_exp(X[j, i] - mx[i])
    sm[i] = 0.0
    sm[i] += ex[k, i]
    inv = hl.Func("inv")
    inv[i] = 1.0 / sm[i]
    o[j, i] = ex[j, i] * inv[i] if reciprocal else ex[j, i] / sm[i]
    if reciprocal:
        inv.compute_at(o, i)
    o.parallel(i).vectorize(j, 8)
    ex.compute_at(o, i).vectorize(j, 8)
    for red in (mx, sm):
        ko, ki = hl.RVar("ko"), hl.RVar("ki")
        red.compute_at(o, i)
        part = red.update().split(k, ko, ki, lanes).rfactor(ki, u)
        part.compute_at(o, i).vectorize(u)
        part.update().vectorize(u)
    o.compile_jit(halide_target())
    X.set(hl.Buffer(a))
    result = hl.Buffer(out)
    return lambda: (o.realize(result), np.asarray(result))[1]


def tvm_softmax_rfactor(a: np.ndarray, out: np.ndarray, lanes: int = 8, reciprocal: bool = False) -> Run | None:
    """tvm_softmax with fast_exp, its max and sum each rfactored into *lanes* partial results
    reduced side by side in a vector loop (ko outside, the lanes inside), then combined."""
    if _tvm() is None:
        return None
    sch, r = _tvm_softmax(a.shape, True, reciprocal)
    if reciprocal:
        sch.compute_at(sch.get_sblock("inv"), r)
    rfs = {}
    for name in ("mx", "sm"):
        _, k = sch.get_loops(sch.get_sblock(name))
        _, ki = sch.split(k, [None, lanes])
        rfs[name] = sch.rfactor(ki, factor_axis=0)
    ex_block = sch.get_producers(sch.get_sblock("sm_rf"))[0]
    for block in (sch.get_sblock("sm"), rfs["sm"], ex_block, sch.get_sblock("mx"), rfs["mx"]):
        sch.compute_at(block, r)
    sch.vectorize(sch.get_loops(ex_block)[-1])
    for rf in rfs.values():
        lane, ko = sch.get_loops(rf)[-2:]
        sch.reorder(ko, lane)
        sch.vectorize(lane)
        sch.decompose_reduction(rf, ko)
    return _tvm_run(sch, a, out)


def tvm_default(workload: str, inputs: list, out: np.ndarray) -> Run | None:
    """TVM's build of a benchmark workload with its default schedule (nothing scheduled); None
    without TVM, or for a workload it has no build of."""
    if _tvm() is None or workload not in ("softmax", "matmul", "conv2d", "blur"):
        return None
    if workload == "softmax":
        return _tvm_run(_tvm_softmax(inputs[0].shape, True, default=True)[0], inputs[0], out)
    make = {"matmul": tvm_matmul, "conv2d": tvm_conv2d, "blur": tvm_blur}[workload]
    return make(*inputs, out, default=True)
