"""Time build() and a run of a tiled 3-stage blur on 512x512, with and without bounds checks.

Run by hand: ``python benchmarks/bench_build.py [N]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import schedule as te
from lower import build


def blur(n: int):
    """A 3-stage blur on n x n, tiled 32x32, both producers computed at the tile loop."""
    A = te.placeholder((n, n), name="A")
    bx = te.compute((n, n - 2), lambda y, x: A[y, x] + A[y, x + 1] + A[y, x + 2], name="blur_x")
    by = te.compute((n - 2, n - 2), lambda y, x: bx[y, x] + bx[y + 1, x] + bx[y + 2, x], name="blur_y")
    out = te.compute((n - 2, n - 2), lambda y, x: by[y, x] * 0.125, name="out")
    s = te.create_schedule(out.op)
    yo, xo, yi, xi = s[out].tile(out.op.axis[0], out.op.axis[1], 32, 32)
    s[by].compute_at(s[out], xo)
    s[bx].compute_at(s[out], xo)
    return s, A, out


def main(n: int) -> None:
    s, A, out = blur(n)
    a = np.random.default_rng(0).random((n, n)).astype("float32")
    expected = ((a[:, :-2] + a[:, 1:-1] + a[:, 2:])[:-2] + (a[:, :-2] + a[:, 1:-1] + a[:, 2:])[1:-1]
                + (a[:, :-2] + a[:, 1:-1] + a[:, 2:])[2:]) * 0.125
    print(f"{'blur ' + str(n) + 'x' + str(n):<16}{'mode':<10}{'checks':<8}{'build (s)':>10}{'run (s)':>10}")
    for exact in (False, True):
        for checks in (True, False):
            start = time.perf_counter()
            f = build(s, [A, out], exact=exact, checks=checks)
            built = time.perf_counter() - start
            o = np.zeros((n - 2, n - 2), "float32")
            start = time.perf_counter()
            f(a, o)
            ran = time.perf_counter() - start
            assert np.allclose(o, expected, rtol=1e-5), "the blur differs from NumPy"
            print(f"{'':<16}{'exact' if exact else 'faithful':<10}{str(checks):<8}{built:>10.3f}{ran:>10.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 512)
