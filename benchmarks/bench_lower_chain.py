"""Time ``lower()`` of the N-stage 2-D chain of ``performance.md`` in both modes.

Run by hand: ``python benchmarks/bench_lower_chain.py [N ...]``. Stage k computes
``(f[k-1](y, x) + f[k-1](y, x + 1)) * 0.5`` on 256 x 256; "nested" computes every stage at
its consumer's outermost loop, "tile" every stage at the output's ``y.outer`` (split by 8).
"""

from __future__ import annotations

import sys
import time

import schedule as te
from lower import lower


def chain(n: int, tiled: bool, size: int = 256):
    def average(P):
        return lambda y, x: (P[y, x] + P[y, x + 1]) * 0.5
    A = te.placeholder((size, size + n), name="A")
    stages = [A]
    for k in range(n):
        stages.append(te.compute((size, size + n - k - 1), average(stages[-1]), name=f"f{k}"))
    s = te.create_schedule(stages[-1].op)
    out = stages[-1]
    if tiled:
        yo, _ = s[out].split(out.op.axis[0], factor=8)
        for T in stages[1:-1]:
            s[T].compute_at(s[out], yo)
    else:
        for consumer, producer in zip(reversed(stages[2:]), reversed(stages[1:-1])):
            s[producer].compute_at(s[consumer], s[consumer].op.axis[0])
    return s, [A, out]


def best_seconds(n: int, tiled: bool, exact: bool, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        s, args = chain(n, tiled)
        start = time.perf_counter()
        lower(s, args, exact=exact)
        times.append(time.perf_counter() - start)
    return min(times)


def main(sizes: list[int]) -> None:
    print(f"{'case':<14}{'faithful (s)':>14}{'exact (s)':>12}")
    for tiled in (False, True):
        for n in sizes:
            repeat = 3 if n <= 200 else 2
            f = best_seconds(n, tiled, False, repeat)
            e = best_seconds(n, tiled, True, repeat)
            print(f"{('tile' if tiled else 'nested') + ' N=' + str(n):<14}{f:>14.2f}{e:>12.2f}", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [50, 100, 200, 400])
