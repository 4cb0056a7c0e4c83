"""The cost of a call and of the checks of indices read from data (run by hand: python
benchmarks/bench_call_overhead.py).

First, microseconds per call of kernels that do almost nothing, so that what is measured is the
call: checking the arrays and scalars, binding shapes, the checks for overlap and ranges, and
the ctypes call. Medians of 7 rounds of 20,000 calls, after 1,000 warm-up calls.

Then kernels whose indices come from data, where the run-time check of each index is the cost:
an embedding lookup ``O[t, d] = E[Tok[t], d]`` (8192 x 64 from 50,000 rows), a 1-D gather and
a floordiv by a divisor read from data: milliseconds per call, the best of 7 rounds of 20 calls.
Each with the run-time checks on (the default) and off (``checks=False``).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import numpy as np

import schedule as te
from lower import build


def one_element():
    A = te.placeholder((1,), name="A")
    B = te.compute((1,), lambda i: A[i] + 1, name="B")
    return te.create_schedule(B.op), [A, B], [np.ones(1, "float32"), np.zeros(1, "float32")]


def symbolic():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    return te.create_schedule(B.op), [A, B], [np.ones(4, "float32"), np.zeros(4, "float32")]


def three_arrays_and_a_scalar():
    k = te.var("k")
    A, C = te.placeholder((4, 4), name="A"), te.placeholder((4, 4), name="C")
    B = te.compute((4, 4), lambda i, j: A[i, j] * C[j, i] + k, name="B")
    return (te.create_schedule(B.op), [A, C, B, k],
            [np.ones((4, 4), "float32"), np.ones((4, 4), "float32"), np.zeros((4, 4), "float32"), 3])


def embedding():
    T, D, V = 8192, 64, 50_000
    E = te.placeholder((V, D), name="E")
    Tok = te.placeholder((T,), name="Tok", dtype="int32")
    O = te.compute((T, D), lambda t, d: E[Tok[t], d], name="O")
    rng = np.random.default_rng(0)
    return (te.create_schedule(O.op), [E, Tok, O],
            [rng.random((V, D), dtype="float32"), rng.integers(0, V, T).astype("int32"), np.zeros((T, D), "float32")])


def gather():
    n, m = 1 << 20, 1 << 16
    A = te.placeholder((m,), name="A")
    idx = te.placeholder((n,), name="I", dtype="int32")
    B = te.compute((n,), lambda i: A[idx[i]] * 2, name="B")
    rng = np.random.default_rng(1)
    return (te.create_schedule(B.op), [A, idx, B],
            [rng.random(m, dtype="float32"), rng.integers(0, m, n).astype("int32"), np.zeros(n, "float32")])


def floordiv_by_data():
    n = 1 << 20
    A = te.placeholder((n,), name="A", dtype="int32")
    D = te.placeholder((n,), name="D", dtype="int32")
    B = te.compute((n,), lambda i: te.floordiv(A[i], D[i]), name="B")
    rng = np.random.default_rng(2)
    return (te.create_schedule(B.op), [A, D, B],
            [rng.integers(-1000, 1000, n).astype("int32"), rng.integers(1, 50, n).astype("int32"),
             np.zeros(n, "int32")])


def per_call_ms(f, args, rounds: int = 7, calls: int = 20) -> float:
    f(*args)
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            f(*args)
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e3


def per_call(f, args, rounds: int = 7, calls: int = 20_000) -> float:
    for _ in range(1000):
        f(*args)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            f(*args)
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times) * 1e6


def main() -> None:
    os.environ.setdefault("TEBOUND_CACHE_DIR", tempfile.mkdtemp(prefix="tebound_bench_"))
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| kernel | checks on (us/call) | checks off (us/call) |")
    print("|---|---|---|")
    for name, make in (("one element", one_element), ("symbolic shape", symbolic),
                       ("3 arrays + a scalar", three_arrays_and_a_scalar)):
        s, args, values = make()
        on = per_call(build(s, args, target="c"), values)
        off = per_call(build(s, args, target="c", checks=False), values)
        print(f"| {name} | {on:.2f} | {off:.2f} |", flush=True)
    print()
    print("| kernel with indices from data | checks on (ms/call) | checks off (ms/call) | cost of the checks |")
    print("|---|---|---|---|")
    for name, make in (("embedding lookup 8192 x 64", embedding), ("1-D gather, 2^20", gather),
                       ("floordiv by data, 2^20", floordiv_by_data)):
        s, args, values = make()
        on = per_call_ms(build(s, args, target="c"), values)
        off = per_call_ms(build(s, args, target="c", checks=False), values)
        print(f"| {name} | {on:.3f} | {off:.3f} | {100 * (on / off - 1):+.1f}% |", flush=True)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr)


if __name__ == "__main__":
    main()
