"""Exact mode's regions as lowered: allocations are the largest per-iteration box."""

from __future__ import annotations

import re

import numpy as np
import pytest

import schedule as te
from bound import explain
from lower import build, lower


def fused(n, m, factor):
    """The document's Example 6 at n x m: C's axes fused, split by *factor*, B at the outer loop."""
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] + 2, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] * 3, name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(s[C].fuse(*C.op.axis), factor)
    s[B].compute_at(s[C], xo)
    return s, A, B, C


def largest_box(n, m, factor):
    """By hand: the rows and columns each block of *factor* fused indices touches."""
    rows = cols = 0
    for start in range(0, n * m, factor):
        points = [divmod(f, m) for f in range(start, min(start + factor, n * m))]
        rows = max(rows, max(i for i, _ in points) - min(i for i, _ in points) + 1)
        cols = max(cols, max(j for _, j in points) - min(j for _, j in points) + 1)
    return rows * cols


def allocated(text, name):
    return int(re.search(rf"allocate {name}\[float32 \* (\d+)\]", text).group(1))


@pytest.mark.parametrize("n, m, factor", [(4, 4, 3), (4, 4, 4), (4, 4, 8), (16, 16, 3), (16, 16, 5),
                                          (16, 16, 7), (20, 12, 7)])
def test_fused_split_allocates_the_largest_per_iteration_box(n, m, factor):
    s, A, B, C = fused(n, m, factor)
    text = str(lower(s, [A, C]))
    assert allocated(text, "B") == largest_box(n, m, factor) == explain(s)[B].allocated
    a = np.random.default_rng(0).random((n, m), dtype=np.float32)
    c = np.full((n, m), np.nan, dtype=np.float32)
    build(s, [A, C])(a, c)
    np.testing.assert_allclose(c, (a + 2) * 3, rtol=1e-6)


@pytest.mark.parametrize("n, m, factor", [(4, 4, 3), (16, 16, 3), (16, 16, 7), (20, 12, 7)])
def test_exact_ir_is_at_most_three_times_the_faithful_ir(n, m, factor):
    s, A, B, C = fused(n, m, factor)
    faithful, exact = str(lower(s, [A, C], exact=False)), str(lower(s, [A, C], exact=True))
    assert len(exact) <= 3 * len(faithful), exact
    assert "B[((i*" + str(m) + ") + j)]" in exact  # the box's row stride, not the region's extent
