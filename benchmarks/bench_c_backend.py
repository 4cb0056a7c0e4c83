"""Run times of the C target (run by hand: python benchmarks/bench_c_backend.py [--interleaved]
[--no-checks] [--fast-math]).

A 3x3 blur in three stages (x-blur at the tile of the y-blur, tiled 64x64, rows parallel,
inner loop vectorized) at 2048x2048; a 512^3 matmul tiled 32x32 (k split by 4, outer rows
parallel, inner columns vectorized) and the same with B packed and an 8x16 register tile; a
3x3 conv2d with a local accumulator; a row softmax with exp and with fast_exp. Medians of 30
runs, with NumPy's figures and the compile time of each kernel (a fresh cache). Where Halide
or TVM is installed (a scratch environment, see :mod:`peers`), the same schedules run there in
the same process. Arrays are 64-byte aligned (``lower.nd``, as TVM's ``tvm.nd.array``), for us
and Halide alike, and all runners of a workload share its input and output arrays: where an
array starts in its page decides whether its stores alias another's loads (4K aliasing; the
tiled matmul ran 2.0-3.7 ms, ours and Halide's alike, by the output's offset alone). TVM copies
them into its own aligned arrays. ``--no-checks`` builds ours with ``checks=False`` (no run-time
checks), ``--fast-math`` with ``fast_math=True`` (GCC's fast math, fused multiply-adds).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import numpy as np
import peers

import schedule as te
from lower import build, nd


def blur(n: int = 2048, rows: int = 64, cols: int = 64):
    """The 3x3 blur in tiles of rows x cols (the x-blur at the tile of the y-blur)."""
    A = te.placeholder((n + 2, n + 2), name="A")
    bx = te.compute((n + 2, n), lambda y, x: (A[y, x] + A[y, x + 1] + A[y, x + 2]) / 3, name="bx")
    by = te.compute((n, n), lambda y, x: (bx[y, x] + bx[y + 1, x] + bx[y + 2, x]) / 3, name="by")
    s = te.create_schedule(by.op)
    yo, xo, yi, xi = s[by].tile(by.op.axis[0], by.op.axis[1], rows, cols)
    s[bx].compute_at(s[by], xo)
    s[by].parallel(yo)
    s[by].vectorize(xi)
    s[bx].vectorize(s[bx].op.axis[1])
    a = nd.array(np.random.default_rng(0).random((n + 2, n + 2)).astype("float32"))

    def numpy_blur():
        x = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / 3
        return (x[:-2] + x[1:-1] + x[2:]) / 3
    return s, [A, by], [a], (n, n), numpy_blur, {
        "Halide": lambda out: peers.halide_blur(a, out, cols, rows=rows),
        "TVM": lambda out: peers.tvm_blur(a, out, cols, rows=rows)}


def matmul(n: int = 512):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 32, 32)
    ko, ki = s[C].split(k, factor=4)
    s[C].reorder(xo, yo, ko, xi, ki, yi)
    s[C].parallel(xo)
    s[C].vectorize(yi)
    rng = np.random.default_rng(1)
    a, b = nd.array(rng.random((n, n)).astype("float32")), nd.array(rng.random((n, n)).astype("float32"))
    return s, [A, B, C], [a, b], (n, n), lambda: a @ b, {
        "Halide": lambda out: peers.halide_matmul(a, b, out), "TVM": lambda out: peers.tvm_matmul(a, b, out)}


def matmul_packed(n: int = 512, rows: int = 8, cols: int = 16):
    """The schedule of TVM's "optimize GEMM on CPU" tutorial: B packed into column panels of
    *cols*, a register tile of rows x cols accumulated in a local buffer (its rows unrolled,
    its columns vectorized: variables in the C), output rows parallel."""
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    P = te.compute((n // cols, n, cols), lambda jo, kk, ji: B[kk, jo * cols + ji], name="P")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * P[j // cols, k, j % cols], axis=k), name="C")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], rows, cols)
    s[CC].compute_at(s[C], no)
    mc, nc = s[CC].op.axis
    (kk,) = s[CC].op.reduce_axis
    s[CC].reorder(kk, mc, nc)
    s[CC].unroll(mc)
    s[CC].vectorize(nc)
    s[C].parallel(mo)
    s[C].vectorize(ni)
    s[P].parallel(s[P].op.axis[0])
    s[P].vectorize(s[P].op.axis[2])
    rng = np.random.default_rng(1)
    a, b = nd.array(rng.random((n, n)).astype("float32")), nd.array(rng.random((n, n)).astype("float32"))
    return s, [A, B, C], [a, b], (n, n), lambda: a @ b, {
        "Halide": lambda out: peers.halide_matmul_packed(a, b, out, rows, cols),
        "TVM": lambda out: peers.tvm_matmul_packed(a, b, out, rows, cols)}


def conv2d(n: int = 56, c: int = 64, k: int = 64):
    """NCHW 3x3, pad 1: the padding at the root (channels parallel); output channels split by 8
    and x by 8, (ko, y) fused and parallel, a local accumulator at the x tile with the
    reduction outermost, then the channel (unrolled), then x (vectorized)."""
    data = te.placeholder((1, c, n, n), name="data")
    weight = te.placeholder((k, c, 3, 3), name="weight")
    pad = te.compute((1, c, n + 2, n + 2), lambda b, ch, y, x: te.if_then_else(
        te.all(y >= 1, y <= n, x >= 1, x <= n), data[b, ch, y - 1, x - 1], te.const(0.0)), name="pad")
    rc, ry, rx = te.reduce_axis((0, c), name="rc"), te.reduce_axis((0, 3), name="ry"), te.reduce_axis((0, 3), name="rx")
    out = te.compute((1, k, n, n), lambda b, f, y, x: te.sum(
        pad[b, rc, y + ry, x + rx] * weight[f, rc, ry, rx], axis=[rc, ry, rx]), name="conv")
    s = te.create_schedule(out.op)
    s[pad].parallel(s[pad].op.axis[1])
    local = s.cache_write(out, "local")
    b, f, y, x = s[out].op.axis
    ko, ki = s[out].split(f, factor=8)
    xo, xi = s[out].split(x, factor=8)
    s[out].reorder(b, ko, y, xo, ki, xi)
    s[out].parallel(s[out].fuse(ko, y))
    s[local].compute_at(s[out], xo)
    lb, lf, ly, lx = s[local].op.axis
    s[local].reorder(lb, ly, *s[local].op.reduce_axis, lf, lx)
    s[local].unroll(lf)
    s[local].vectorize(lx)
    s[out].vectorize(xi)
    rng = np.random.default_rng(2)
    d = nd.array(rng.random((1, c, n, n)).astype("float32"))
    w = nd.array(rng.random((k, c, 3, 3)).astype("float32"))

    def numpy_conv():
        p = np.pad(d[0], ((0, 0), (1, 1), (1, 1)))
        cols = np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(1, 2))  # c, n, n, 3, 3
        return np.einsum("cyxij,kcij->kyx", cols, w, optimize=True)[None]
    return s, [data, weight, out], [d, w], (1, k, n, n), numpy_conv, {
        "Halide": lambda o: peers.halide_conv2d(d, w, o), "TVM": lambda o: peers.tvm_conv2d(d, w, o)}


def softmax(rows: int = 4096, cols: int = 1024, exp=te.exp):
    """Row softmax: rows parallel; max, exp and sum at the row; element-wise loops vectorized."""
    x = te.placeholder((rows, cols), name="x")
    k1, k2 = te.reduce_axis((0, cols), name="k1"), te.reduce_axis((0, cols), name="k2")
    mx = te.compute((rows,), lambda i: te.max(x[i, k1], axis=k1), name="mx")
    ex = te.compute((rows, cols), lambda i, j: exp(x[i, j] - mx[i]), name="ex")
    sm = te.compute((rows,), lambda i: te.sum(ex[i, k2], axis=k2), name="sm")
    out = te.compute((rows, cols), lambda i, j: ex[i, j] / sm[i], name="out")
    s = te.create_schedule(out.op)
    i, j = s[out].op.axis
    s[out].parallel(i)
    s[out].vectorize(j)
    for st in (mx, ex, sm):
        s[st].compute_at(s[out], i)
    s[ex].vectorize(s[ex].op.axis[1])
    a = nd.array(np.random.default_rng(3).standard_normal((rows, cols)).astype("float32"))

    def numpy_softmax():
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    fast = exp is getattr(te, "fast_exp", None)
    return s, [x, out], [a], (rows, cols), numpy_softmax, {
        "Halide": lambda o: peers.halide_softmax(a, o, fast), "TVM": lambda o: peers.tvm_softmax(a, o, fast)}


def softmax_rfactor(rows: int = 4096, cols: int = 1024, lanes: int = 8, reciprocal: bool = False):
    """The softmax with fast_exp whose max and sum are each split into *lanes* partial results
    (rfactor) reduced side by side in a vector loop, then combined: as fast as a reduction gets
    without reordering floating-point sums behind the user's back. With *reciprocal*, the row
    is multiplied by one reciprocal of its sum instead of divided by the sum (the user's
    choice: a rounding more, a division per row instead of per element)."""
    x = te.placeholder((rows, cols), name="x")
    k1, k2 = te.reduce_axis((0, cols), name="k1"), te.reduce_axis((0, cols), name="k2")
    mx = te.compute((rows,), lambda i: te.max(x[i, k1], axis=k1), name="mx")
    ex = te.compute((rows, cols), lambda i, j: te.fast_exp(x[i, j] - mx[i]), name="ex")
    sm = te.compute((rows,), lambda i: te.sum(ex[i, k2], axis=k2), name="sm")
    if reciprocal:
        inv = te.compute((rows,), lambda i: te.const(1.0, "float32") / sm[i], name="inv")
        out = te.compute((rows, cols), lambda i, j: ex[i, j] * inv[i], name="out")
    else:
        out = te.compute((rows, cols), lambda i, j: ex[i, j] / sm[i], name="out")
    s = te.create_schedule(out.op)
    i, j = s[out].op.axis
    s[out].parallel(i)
    s[out].vectorize(j)
    partial = [s.rfactor(red, s[red].split(k, factor=lanes)[1]) for red, k in ((mx, k1), (sm, k2))]
    for st in (mx, ex, sm, *partial, *([inv] if reciprocal else [])):
        s[st].compute_at(s[out], i)
    s[ex].vectorize(s[ex].op.axis[1])
    for rf in partial:
        lane, row = s[rf].op.axis
        s[rf].reorder(row, s[rf].op.reduce_axis[0], lane)
        s[rf].vectorize(lane)
    a = nd.array(np.random.default_rng(3).standard_normal((rows, cols)).astype("float32"))

    def numpy_softmax():
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    return s, [x, out], [a], (rows, cols), numpy_softmax, {
        "Halide": lambda o: peers.halide_softmax_rfactor(a, o, lanes, reciprocal),
        "TVM": lambda o: peers.tvm_softmax_rfactor(a, o, lanes, reciprocal)}


def triad_bandwidth(n: int = 1 << 24) -> float:
    """Bytes per second of a STREAM triad (a = b + 3 c, parallel and vectorized) built here: the
    memory roofline of this run, counting 12 bytes per element as STREAM does."""
    B = te.placeholder((n,), name="B")
    C = te.placeholder((n,), name="C")
    A = te.compute((n,), lambda i: B[i] + 3.0 * C[i], name="A")
    s = te.create_schedule(A.op)
    outer, inner = s[A].split(A.op.axis[0], factor=64)
    s[A].parallel(outer)
    s[A].vectorize(inner)
    f = build(s, [B, C, A], target="c")
    b, c, a = (nd.array(np.random.default_rng(i).random(n).astype("float32")) for i in range(3))
    seconds = alternating_medians({"triad": lambda: f(b, c, a)})["triad"]
    np.testing.assert_allclose(a, b + 3 * c, rtol=1e-6)
    return 12 * n / seconds


#: Bytes each memory-bound workload must move at least (its input read once, its output written once).
MEMORY_BOUND = {"blur": 4 * (2050 * 2050 + 2048 * 2048), "softmax": 2 * 4 * 4096 * 1024}


def median_time(fn, runs: int = 10) -> float:
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def alternating_medians(runners: dict, rounds: int = 5, runs: int = 6, settle: float = 0.2,
                        warm: float = 0.05) -> dict:
    """Median time of each runner, the runners taking turns (*rounds* of *runs* each), so that a
    change in the machine's load falls on all of them alike. Before each turn the process
    sleeps *settle* seconds, then calls the runner untimed for *warm* seconds: the previous
    runner's thread pool has stopped spinning by then (OpenBLAS's slowed the next kernel 3x,
    Halide's 1.5x), and this runner's threads and cores are awake again (one untimed call
    after a pause left the conv2d 1.6x slower than when called continuously)."""
    times: dict = {name: [] for name in runners}
    for fn in runners.values():
        fn()
    for _ in range(rounds):
        for name, fn in runners.items():
            time.sleep(settle)
            start = time.perf_counter()
            while time.perf_counter() - start < warm:
                fn()
            for _ in range(runs):
                t = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def interleaved_medians(runners: dict, calls: int = 150) -> dict:
    """Median time of each runner, the runners called in turn one call at a time: less exposed
    to a noisy host than turns of several calls, though each call follows another runtime's
    (NumPy is left out: OpenBLAS's threads spin long after a call)."""
    times: dict = {name: [] for name in runners}
    for fn in runners.values():
        fn()
    for _ in range(calls):
        for name, fn in runners.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def main() -> None:
    os.environ["TEBOUND_CACHE_DIR"] = tempfile.mkdtemp(prefix="tebound_bench_")
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    bandwidth = triad_bandwidth()
    print(f"triad bandwidth: {bandwidth / 1e9:.1f} GB/s (the memory limit below: the bytes a workload must move at it)")
    print("| workload | ours (C) | Halide | TVM | NumPy | ours / best peer | ours / memory limit "
          "| compile: ours, Halide, TVM (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, make in (("blur 3x3, 3 stages, 2048^2", blur),
                       ("blur 3x3, 3 stages, 2048^2, strips of 32 rows", lambda: blur(rows=32, cols=2048)),
                       ("matmul 512^3, tiled", matmul),
                       ("matmul 512^3, packed, 8x16 register tile", matmul_packed),
                       ("conv2d NCHW 3x3, C=K=64, 56^2", conv2d), ("softmax 4096x1024, exp", softmax),
                       ("softmax 4096x1024, fast_exp", lambda: softmax(exp=te.fast_exp)),
                       ("softmax 4096x1024, fast_exp, rfactor by 8", softmax_rfactor),
                       ("softmax 4096x1024, fast_exp, rfactor by 16, reciprocal of the sum",
                        lambda: softmax_rfactor(lanes=16, reciprocal=True))):
        s, args, inputs, shape, ref, others = make()
        expected = ref()
        t = time.perf_counter()
        f = build(s, args, target="c", checks=False if "--no-checks" in sys.argv else None,
                  fast_math="--fast-math" in sys.argv)
        compiles = {"ours": time.perf_counter() - t}
        out = nd.array(np.full(shape, np.nan, "float32"))
        f(*inputs, out)
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-6)
        runners = {"ours": lambda f=f, inputs=inputs, out=out: f(*inputs, out)}
        for peer, prepare in others.items():
            t = time.perf_counter()
            go = prepare(out)  # one output array for all: its page offset decides 4K aliasing
            if go is None:
                continue
            compiles[peer] = time.perf_counter() - t
            got = go()
            np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, "numpy") else got), expected,
                                       rtol=1e-4, atol=1e-6)
            runners[peer] = go
        if "--interleaved" in sys.argv:  # OpenBLAS's spinning threads would slow whoever follows NumPy
            med = {**interleaved_medians(runners), **alternating_medians({"NumPy": ref})}
        else:
            med = alternating_medians({**runners, "NumPy": ref})
        peers_run = [med[p] for p in ("Halide", "TVM") if p in med]
        ratio = f"{med['ours'] / min(peers_run):.2f}" if peers_run else "-"

        def cell(k: str, med: dict = med) -> str:
            return f"{med[k] * 1e3:.2f}" if k in med else "-"
        comp = ", ".join(f"{compiles[k]:.2f}" if k in compiles else "-" for k in ("ours", "Halide", "TVM"))
        moved = next((v for k, v in MEMORY_BOUND.items() if name.startswith(k)), None)
        limit = f"{med['ours'] / (moved / bandwidth):.2f}" if moved else "-"
        print(f"| {name} | {cell('ours')} | {cell('Halide')} | {cell('TVM')} | {cell('NumPy')} | {ratio} | {limit} "
              f"| {comp} |", flush=True)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
