"""The cost of a call (run by hand: python benchmarks/bench_call_overhead.py).

Microseconds per call of kernels that do almost nothing, so that what is measured is the call:
checking the arrays and scalars, binding shapes, the checks for overlap and ranges, and the
ctypes call. Each with the run-time checks on (the default) and off (``checks=False``).
Medians of 7 rounds of 20,000 calls, after 1,000 warm-up calls.
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
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr)


if __name__ == "__main__":
    main()
