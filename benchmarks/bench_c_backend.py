"""Run times of the C target on issue 14's workloads (run by hand: python benchmarks/bench_c_backend.py).

A 3x3 blur in three stages (x-blur at the tile of the y-blur, tiled 64x64, rows parallel,
inner loop vectorized) at 2048x2048, and a tiled 512^3 matmul (32x32 tiles, k split by 4,
the outer rows parallel, the inner columns vectorized); medians of 10 runs, with NumPy's
figures and the compile time of each kernel (a fresh cache). Where Halide or TVM is installed
(a scratch environment, see :mod:`peers`), the same schedules run there in the same process.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

import numpy as np
import peers

import schedule as te
from lower import build


def blur(n: int = 2048):
    A = te.placeholder((n + 2, n + 2), name="A")
    bx = te.compute((n + 2, n), lambda y, x: (A[y, x] + A[y, x + 1] + A[y, x + 2]) / 3, name="bx")
    by = te.compute((n, n), lambda y, x: (bx[y, x] + bx[y + 1, x] + bx[y + 2, x]) / 3, name="by")
    s = te.create_schedule(by.op)
    yo, xo, yi, xi = s[by].tile(by.op.axis[0], by.op.axis[1], 64, 64)
    s[bx].compute_at(s[by], xo)
    s[by].parallel(yo)
    s[by].vectorize(xi)
    s[bx].vectorize(s[bx].op.axis[1])
    a = np.random.default_rng(0).random((n + 2, n + 2)).astype("float32")

    def numpy_blur():
        x = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / 3
        return (x[:-2] + x[1:-1] + x[2:]) / 3
    return s, [A, by], [a], (n, n), numpy_blur, {
        "Halide": lambda out: peers.halide_blur(a, out), "TVM": lambda out: peers.tvm_blur(a, out)}


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
    a, b = rng.random((n, n)).astype("float32"), rng.random((n, n)).astype("float32")
    return s, [A, B, C], [a, b], (n, n), lambda: a @ b, {
        "Halide": lambda out: peers.halide_matmul(a, b, out), "TVM": lambda out: peers.tvm_matmul(a, b, out)}


def median_time(fn, runs: int = 10) -> float:
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    os.environ["TEBOUND_CACHE_DIR"] = tempfile.mkdtemp(prefix="tebound_bench_")
    for name, make in (("blur 3x3, 3 stages, 2048^2", blur), ("matmul 512^3", matmul)):
        s, args, inputs, shape, ref, others = make()
        t = time.perf_counter()
        f = build(s, args, target="c")
        compile_s = time.perf_counter() - t
        out = np.full(shape, np.nan, "float32")
        run = median_time(lambda f=f, inputs=inputs, out=out: f(*inputs, out), runs=30)
        np.testing.assert_allclose(out, ref(), rtol=1e-4)
        print(f"{name}: C {run * 1e3:.2f} ms, NumPy {median_time(ref) * 1e3:.2f} ms, "
              f"lower+compile {compile_s:.2f} s")
        for peer, prepare in others.items():
            t = time.perf_counter()
            go = prepare(np.zeros(shape, "float32"))
            if go is None:
                print(f"  {peer}: not installed")
                continue
            compile_s = time.perf_counter() - t
            got = go()
            np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, "numpy") else got), ref(), rtol=1e-4)
            theirs = median_time(go, runs=30)
            print(f"  {peer}: {theirs * 1e3:.2f} ms (ours / theirs {run / theirs:.2f}), compile {compile_s:.2f} s")


if __name__ == "__main__":
    main()
