"""Time the deepest programs end to end: infer, lower, print, build and run, in both modes.

Run by hand: ``python benchmarks/bench_depth.py [N ...]`` (default 250 500 1000). Cases, over a
16-element 1-D tensor with ``T_k[i] = T_{k-1}[i] + 1``:

- ``at``: N stages, each computed at its consumer's loop (loop nests N deep);
- ``root``: N stages at the root (realize scopes N deep);
- ``inline``: N stages inlined into the last (one expression N deep);
- ``expr``: one stage whose body is an expression N nodes deep.

Everything runs at Python's default recursion limit; each run's output is checked against NumPy.
"""

from __future__ import annotations

import sys
import time
from functools import partial

import numpy as np

import schedule as te
from bound import infer_bound
from lower import build, lower

LENGTH = 16


def chain(n: int, placement: str) -> tuple[te.Schedule, te.Tensor, te.Tensor, int]:
    """The N-stage chain placed as *placement* says; the output is A + N."""
    A = te.placeholder((LENGTH,), name="A")
    stages = []
    T = A
    for k in range(n):
        T = _add_one(T, f"T{k}")
        stages.append(T)
    s = te.create_schedule(T.op)
    for producer, consumer in zip(stages, stages[1:]):
        if placement == "at":
            s[producer].compute_at(s[consumer], consumer.op.axis[0])
        elif placement == "inline":
            s[producer].compute_inline()
    return s, A, T, n


def _add_one(P: te.Tensor, name: str) -> te.Tensor:
    return te.compute((LENGTH,), lambda i: P[i] + 1, name=name)


def deep_expression(n: int) -> tuple[te.Schedule, te.Tensor, te.Tensor, int]:
    """One stage computing ``((A[i] + 1) + 1) ... + 1`` with N additions: A + N."""
    A = te.placeholder((LENGTH,), name="A")

    def body(i):
        e = A[i]
        for _ in range(n):
            e = e + 1
        return e
    C = te.compute((LENGTH,), body, name="C")
    return te.create_schedule(C.op), A, C, n


def run_case(make, exact: bool) -> dict[str, float]:
    s, A, C, offset = make()
    times = {}
    start = time.perf_counter()
    infer_bound(s, exact=exact)
    times["infer"] = time.perf_counter() - start
    start = time.perf_counter()
    f = lower(s, [A, C], exact=exact)
    times["lower"] = time.perf_counter() - start
    start = time.perf_counter()
    str(f)
    times["print"] = time.perf_counter() - start
    start = time.perf_counter()
    fn = build(s, [A, C], exact=exact)
    times["build"] = time.perf_counter() - start
    a = np.arange(LENGTH, dtype="float32")
    c = np.full(LENGTH, np.nan, "float32")
    start = time.perf_counter()
    fn(a, c)
    times["run"] = time.perf_counter() - start
    if not np.array_equal(c, a + offset):
        raise AssertionError(f"wrong result: {c}")
    return times


def main(sizes: list[int]) -> None:
    print(f"recursion limit {sys.getrecursionlimit()}")
    steps = ["infer", "lower", "print", "build", "run"]
    print(f"{'case':<16}{'mode':<10}" + "".join(f"{s:>9}" for s in steps) + "   (seconds)")
    for n in sizes:
        cases = {"at": partial(chain, n, "at"), "root": partial(chain, n, "root"),
                 "inline": partial(chain, n, "inline"), "expr": partial(deep_expression, n)}
        for name, make in cases.items():
            for exact in (False, True):
                times = run_case(make, exact)
                mode = "exact" if exact else "faithful"
                print(f"{name + ' N=' + str(n):<16}{mode:<10}" + "".join(f"{times[s]:>9.2f}" for s in steps))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [250, 500, 1000])
