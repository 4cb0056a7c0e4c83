"""How lowering, building and bound inference grow with the program (run by hand:
``python benchmarks/bench_scale.py [--chain N ...] [--stencil N ...]``).

The chain: N element-wise stages (``s[k][i] = s[k-1][i] + 1`` over 64 elements), each its own
loop: seconds to lower and to build (C), and seconds per 1,000 stages, which stay flat when the
cost is linear. The stencil: N stages of a 1-D stencil, each split by 4 with its producer at
its outer loop (attach paths N deep, ``bench_infer_bound.py``): seconds of ``infer_bound`` in
the faithful and the exact mode.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time

from bench_infer_bound import stencil_chain

import schedule as te
from bound import infer_bound
from lower import build, lower


def chain(n: int) -> tuple[te.Schedule, list[te.Tensor]]:
    A = te.placeholder((64,), name="A")
    t = A
    for k in range(n):
        t = (lambda p, k=k: te.compute((64,), lambda i: p[i] + 1.0, name=f"s{k}"))(t)
    return te.create_schedule(t.op), [A, t]


def seconds(fn) -> float:
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chain", type=int, nargs="*", default=[1000, 3000, 10_000, 100_000])
    parser.add_argument("--stencil", type=int, nargs="*", default=[25, 50, 100, 200])
    args = parser.parse_args()
    os.environ.setdefault("TEBOUND_CACHE_DIR", tempfile.mkdtemp(prefix="tebound_bench_"))
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.chain:
        print("| chain stages | lower (s) | build (s) | lower per 1,000 | build per 1,000 |")
        print("|---|---|---|---|---|")
        for n in args.chain:
            s, a = chain(n)
            t_lower = seconds(lambda s=s, a=a: lower(s, a))
            s, a = chain(n)
            t_build = seconds(lambda s=s, a=a: build(s, a, "c"))
            print(f"| {n:,} | {t_lower:.2f} | {t_build:.2f} | {1000 * t_lower / n:.3f} | {1000 * t_build / n:.3f} |",
                  flush=True)
    if args.stencil:
        print("| stencil stages | faithful infer_bound (s) | exact infer_bound (s) |")
        print("|---|---|---|")
        for n in args.stencil:
            faithful = seconds(lambda n=n: infer_bound(stencil_chain(n), exact=False))
            exact = seconds(lambda n=n: infer_bound(stencil_chain(n), exact=True))
            print(f"| {n} | {faithful:.2f} | {exact:.2f} |", flush=True)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
