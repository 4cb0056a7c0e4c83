"""Exact mode's regions as lowered: allocations are the largest per-iteration box."""

from __future__ import annotations

import re

import numpy as np
import pytest

import schedule as te
from bound import explain
from lower import build, lower

from ..provides import pipeline, provided


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


@pytest.mark.parametrize("n, m, factor", [(4, 4, 3), (4, 4, 4), (4, 4, 8), (16, 16, 3), (16, 16, 5),
                                          (16, 16, 7), (20, 12, 7)])
def test_each_iteration_computes_each_needed_element_once(n, m, factor):
    s, A, B, C = fused(n, m, factor)
    stores = provided(pipeline(s), "B", "i.j.fused.outer")
    blocks = range((n * m + factor - 1) // factor)
    assert sorted(stores) == list(blocks)
    for o in blocks:
        needed = {divmod(f, m) for f in range(o * factor, min(o * factor + factor, n * m))}
        assert sorted(stores[o]) == sorted(needed), o  # each needed element, once
    assert explain(s)[B].computed == n * m


def test_disjoint_column_ranges_and_strided_reads_compute_only_what_is_read():
    A = te.placeholder((8, 16), name="A")
    B = te.compute((8, 16), lambda i, j: A[i, j] * 2, name="B")
    C = te.compute((8, 4), lambda i, j: B[i, j] + B[i, j + 12], name="C")   # columns 0-3 and 12-15
    D = te.compute((8, 4), lambda i, j: B[i, 4 * j + 1], name="D")          # columns 1, 5, 9, 13
    E = te.compute((8, 4), lambda i, j: C[i, j] + D[i, j], name="E")
    s = te.create_schedule(E.op)
    s[C].compute_at(s[E], E.op.axis[0])
    s[D].compute_at(s[E], E.op.axis[0])
    s[B].compute_at(s[E], E.op.axis[0])
    stores = provided(pipeline(s), "B", "i")
    for i in range(8):
        assert sorted(stores[i]) == [(i, j) for j in sorted({0, 1, 2, 3, 12, 13, 14, 15, 5, 9})]
    assert explain(s)[B].computed == 8 * 10
    a = np.random.default_rng(1).random((8, 16), dtype=np.float32)
    e = np.full((8, 4), np.nan, dtype=np.float32)
    build(s, [A, E])(a, e)
    np.testing.assert_allclose(e, 2 * a[:, 0:4] + 2 * a[:, 12:16] + 2 * a[:, 1::4], rtol=1e-6)


def test_symbolic_rows_allocate_the_largest_box_over_the_loops():
    n = te.var("n")
    A = te.placeholder((n, 16), name="A")
    B = te.compute((n, 16), lambda i, j: A[i, j] + 2, name="B")
    C = te.compute((n, 16), lambda i, j: B[i, j] * 3, name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(s[C].fuse(*C.op.axis), 3)
    s[B].compute_at(s[C], xo)
    text = str(lower(s, [A, C]))
    # by hand: blocks of 3 fused indices span at most 2 rows x 16 columns; one row holds only 3
    assert "allocate B[float32 * select((n == 1), 3, 32)]" in text
    f = build(s, [A, C])
    for rows in (1, 5, 16):
        a = np.random.default_rng(rows).random((rows, 16), dtype=np.float32)
        c = np.full((rows, 16), np.nan, dtype=np.float32)
        f(a, c)
        np.testing.assert_allclose(c, (a + 2) * 3, rtol=1e-6)


def test_tiled_blur_computes_each_tile_halo_once():
    n, tile = 16, 4
    A = te.placeholder((n + 2, n + 2), name="A")
    bx = te.compute((n + 2, n), lambda y, x: A[y, x] + A[y, x + 1] + A[y, x + 2], name="bx")
    by = te.compute((n, n), lambda y, x: bx[y, x] + bx[y + 1, x] + bx[y + 2, x], name="by")
    s = te.create_schedule(by.op)
    yo, xo, _, _ = s[by].tile(by.op.axis[0], by.op.axis[1], tile, tile)
    s[bx].compute_at(s[by], xo)
    stores = provided(pipeline(s), "bx", "y.outer")
    per_row = {}
    for yo_value, points in stores.items():
        per_row.setdefault(yo_value, []).extend(points)
    for y0 in range(n // tile):
        # each of the 4 column tiles of this row of tiles computes its (tile + 2) x tile halo once
        expected = sorted((y, x) for y in range(y0 * tile, y0 * tile + tile + 2) for x in range(n))
        assert sorted(per_row[y0]) == expected
    assert explain(s)[bx].computed == (n // tile) * (tile + 2) * n
    a = np.random.default_rng(2).random((n + 2, n + 2), dtype=np.float32)
    out = np.full((n, n), np.nan, dtype=np.float32)
    build(s, [A, by])(a, out)
    h = a[:, :-2] + a[:, 1:-1] + a[:, 2:]
    np.testing.assert_allclose(out, h[:-2] + h[1:-1] + h[2:], rtol=1e-5)


@pytest.mark.parametrize("axis, factor", [(1, 4), (0, 2)])
def test_a_producer_with_its_own_loops_visits_its_exact_set_in_them(axis, factor):
    s, A, B, C = fused(16, 16, 3)
    s[B].split(B.op.axis[axis], factor=factor)
    stores = provided(pipeline(s), "B", "i.j.fused.outer")
    for o in range(86):
        needed = {divmod(f, 16) for f in range(o * 3, min(o * 3 + 3, 256))}
        assert sorted(stores[o]) == sorted(needed), o
    assert explain(s)[B].computed == 256
    a = np.random.default_rng(3).random((16, 16), dtype=np.float32)
    c = np.full((16, 16), np.nan, dtype=np.float32)
    build(s, [A, C])(a, c)
    np.testing.assert_allclose(c, (a + 2) * 3, rtol=1e-6)


def test_a_producer_fused_over_a_varying_extent_computes_its_box_and_explain_says_so():
    # B's row length varies with the iteration (3 or 16), so its fused loop is not affine in
    # its axes: it computes the box, once per element, and explain counts what runs
    s, A, B, C = fused(16, 16, 3)
    s[B].fuse(*B.op.axis)
    stores = provided(pipeline(s), "B", "i.j.fused.outer")
    assert all(len(set(points)) == len(points) for points in stores.values())
    assert explain(s)[B].computed == sum(len(points) for points in stores.values()) > 256
    a = np.random.default_rng(4).random((16, 16), dtype=np.float32)
    c = np.full((16, 16), np.nan, dtype=np.float32)
    build(s, [A, C])(a, c)
    np.testing.assert_allclose(c, (a + 2) * 3, rtol=1e-6)
