"""Time infer_bound on deep compute_at chains and on a tiled 3-stage blur.

Run by hand: ``python benchmarks/bench_infer_bound.py [N ...]``. The chain has N 1-D stencil
stages (each reads its producer at i-1, i, i+1, guarded at the borders); every stage is split by
4 and its producer is computed at its outer loop, so attach paths nest N deep.
"""

from __future__ import annotations

import functools
import sys
import time

import schedule as te
from bound import infer_bound


def stencil_chain(n: int, length: int = 64) -> te.Schedule:
    T = te.placeholder((length,), name="A")
    stages = []
    for k in range(n):
        T = te.compute((length,), _stencil(T, length), name=f"S{k}")
        stages.append(T)
    s = te.create_schedule(stages[-1].op)
    for consumer, producer in zip(reversed(stages), reversed(stages[:-1])):
        outer, _ = s[consumer].split(consumer.op.axis[0], factor=4)
        s[producer].compute_at(s[consumer], outer)
    return s


def _stencil(P: te.Tensor, length: int):
    def body(i):
        total = P[i]
        for d in (-1, 1):
            inside = te.all(i + d >= 0, i + d < length)
            total = total + te.if_then_else(inside, P[i + d], te.const(0.0))
        return total
    return body


def tiled_blur(n: int = 512) -> te.Schedule:
    """The 3-stage blur of ``bench_build``, tiled 32x32 with both producers at the tile loop."""
    from bench_build import blur

    return blur(n)[0]


def measure(build, exact: bool, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        s = build()
        start = time.perf_counter()
        infer_bound(s, exact=exact)
        best = min(best, time.perf_counter() - start)
    return best


def main(sizes: list[int]) -> None:
    print(f"{'case':<22}{'faithful (s)':>14}{'exact (s)':>12}")
    for n in sizes:
        repeat = 3 if n <= 200 else 1
        build = functools.partial(stencil_chain, n)
        f = measure(build, False, repeat)
        e = measure(build, True, repeat)
        print(f"{'chain N=' + str(n):<22}{f:>14.3f}{e:>12.3f}")
    f, e = measure(tiled_blur, False), measure(tiled_blur, True)
    print(f"{'blur 512x512, 32x32':<22}{f:>14.3f}{e:>12.3f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10, 50, 200, 1000])
