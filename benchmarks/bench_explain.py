"""Time explain against infer_bound on the guarded stencil chain of ``bench_infer_bound``.

Run by hand: ``python benchmarks/bench_explain.py [N ...]``. Each stage is split by 4 and its
producer computed at the outer loop, so the innermost stage runs a number of times that doubles
with every stage; explain counts those executions without enumerating them.
"""

from __future__ import annotations

import sys
import time

from bench_infer_bound import stencil_chain

from bound import explain, infer_bound


def best(fn, s, exact: bool, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(s, exact=exact)
        times.append(time.perf_counter() - start)
    return min(times)


def main(sizes: list[int]) -> None:
    print(f"{'stages':>6}{'infer exact':>13}{'explain exact':>15}{'ratio':>7}{'infer faithful':>16}"
          f"{'explain faithful':>18}")
    for n in sizes:
        s = stencil_chain(n)
        repeat = 3 if n <= 20 else 1
        ie = best(infer_bound, s, True, repeat)
        ee = best(explain, s, True, repeat)
        i_f = best(infer_bound, s, False, repeat)
        ef = best(explain, s, False, repeat)
        print(f"{n:>6}{ie:>13.3f}{ee:>15.3f}{ee / ie:>7.2f}{i_f:>16.3f}{ef:>18.3f}", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [2, 4, 6, 10, 20, 30, 50])
