"""Innermost loops whose statements test their variable (a padding's ``if_then_else``) are cut
in the C source where the tests change, the middle running without them; the lowered IR a TVM
user prints is unchanged. Each kind of test against NumPy on both targets."""

from __future__ import annotations

import re

import numpy as np
import pytest

import schedule as te
import tebound.tvm as tvm
from lower import build


def _pad(n, by: int = 1, channels: int = 3):
    """A zero padding by *by* of a channels x n x n image, channels parallel."""
    data = te.placeholder((channels, n, n), name="data")
    pad = te.compute((channels, n + 2 * by, n + 2 * by), lambda c, y, x: te.if_then_else(
        te.all(y >= by, y < n + by, x >= by, x < n + by), data[c, y - by, x - by], 0.0), name="pad")
    s = te.create_schedule(pad.op)
    s[pad].parallel(pad.op.axis[0])
    return s, [data, pad]


def _numpy_pad(a: np.ndarray, by: int) -> np.ndarray:
    return np.pad(a, ((0, 0), (by, by), (by, by)))


@pytest.mark.parametrize("target", ["c", "python"])
def test_a_padding_computes_what_numpy_pads(target):
    s, args = _pad(9, by=2)
    a = np.random.default_rng(0).standard_normal((3, 9, 9)).astype("float32")
    out = np.full((3, 13, 13), 5.0, "float32")
    build(s, args, target=target)(a, out)
    np.testing.assert_array_equal(out, _numpy_pad(a, 2))


def test_the_middle_of_a_padded_row_runs_without_its_column_tests():
    s, args = _pad(9, by=2)
    source = build(s, args, target="c").get_source()
    assert re.search(r"for \(int32_t x = 0; x < 9; \+\+x\)", source)  # the 9 inner columns
    assert "x >= 2" not in source and "x < 11" not in source
    # the lowered IR keeps the one loop over the 13 columns and its test, as TVM prints it
    printed = str(tvm.lower(s, args, simple_mode=True))
    assert "for y, x in T.grid(13, 13)" in printed and "x >= 2 and x < 11" in printed


@pytest.mark.parametrize("target", ["c", "python"])
@pytest.mark.parametrize("n", [0, 1, 6])
def test_a_padding_of_a_symbolic_size_computes_what_numpy_pads(target, n):
    size = te.var("n")
    s, args = _pad(size)
    f = build(s, args, target=target)
    a = np.random.default_rng(n).standard_normal((3, n, n)).astype("float32")
    out = np.full((3, n + 2, n + 2), 5.0, "float32")
    f(a, out)
    np.testing.assert_array_equal(out, _numpy_pad(a, 1))


@pytest.mark.parametrize("target", ["c", "python"])
def test_a_test_that_is_no_interval_is_kept(target):
    """Even columns from one array, odd ones from the other: no range to cut."""
    a = te.placeholder((4, 10), name="a")
    b = te.placeholder((4, 10), name="b")
    c = te.compute((4, 10), lambda i, j: te.if_then_else(j % 2 == 0, a[i, j], b[i, j]), name="c")
    s = te.create_schedule(c.op)
    x, y = (np.random.default_rng(k).standard_normal((4, 10)).astype("float32") for k in (1, 2))
    out = np.zeros((4, 10), "float32")
    build(s, [a, b, c], target=target)(x, y, out)
    np.testing.assert_array_equal(out, np.where(np.arange(10) % 2 == 0, x, y))


@pytest.mark.parametrize("target", ["c", "python"])
def test_a_row_test_beside_a_column_test_keeps_the_other_operand(target):
    """``if_then_else(i < 2 && j >= 3, a, b)``: the column test is cut, the row test kept, and
    where either fails the value is b's (read from data, not a constant)."""
    a = te.placeholder((4, 10), name="a")
    b = te.placeholder((4, 10), name="b")
    c = te.compute((4, 10), lambda i, j: te.if_then_else(te.all(i < 2, j >= 3), a[i, j], b[i, j]), name="c")
    s = te.create_schedule(c.op)
    source = build(s, [a, b, c], target="c").get_source()
    assert "j >= 3" not in source  # cut
    x, y = (np.random.default_rng(k).standard_normal((4, 10)).astype("float32") for k in (3, 4))
    out = np.zeros((4, 10), "float32")
    build(s, [a, b, c], target=target)(x, y, out)
    rows, cols = np.meshgrid(np.arange(4), np.arange(10), indexing="ij")
    np.testing.assert_array_equal(out, np.where((rows < 2) & (cols >= 3), x, y))


@pytest.mark.parametrize("target", ["c", "python"])
def test_a_split_tail_guard_is_cut_and_every_element_written_once(target):
    """A split of 10 by 4: the inner loop's guard ``i.outer*4 + i.inner < 10``."""
    a = te.placeholder((10,), name="a")
    c = te.compute((10,), lambda i: a[i] * 2.0 + 1.0, name="c")
    s = te.create_schedule(c.op)
    s[c].split(c.op.axis[0], factor=4)
    x = np.arange(10, dtype="float32")
    out = np.full(10, -1.0, "float32")
    build(s, [a, c], target=target)(x, out)
    np.testing.assert_array_equal(out, x * 2 + 1)


@pytest.mark.parametrize("target", ["c", "python"])
@pytest.mark.parametrize("n", [1, 3, 5])
def test_only_the_innermost_loop_is_cut_under_a_parallel_loop_of_symbolic_extent(target, n):
    """A symbolic n x 4 array fused and split by 8, the outer loop parallel: the inner loop's
    tail guard (outer*8 + inner < n*4) cuts the inner loop; the parallel loop keeps its bound."""
    size = te.var("n")
    A = te.placeholder((size, 4), name="A")
    B = te.compute(A.shape, lambda i, j: A[i, j] * 2 + 1, name="B")
    s = te.create_schedule(B.op)
    outer, _ = s[B].split(s[B].fuse(*B.op.axis), 8)
    s[B].parallel(outer)
    f = build(s, [A, B], target=target)
    a = np.arange(n * 4, dtype="float32").reshape(n, 4)
    out = np.zeros((n, 4), "float32")
    f(a, out)
    np.testing.assert_array_equal(out, a * 2 + 1)
