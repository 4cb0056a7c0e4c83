"""A float32 max or min reduced over a contiguous row into a value held in a variable (a
softmax's row max) runs by vectors on the C target, and gives the serial loop's bits: where
the order matters (a NaN, a zero of either sign), the loop runs as written. Each row kind
against the Python target's bits and NumPy's values."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import tebound.tvm as tvm
from lower import build


def _centered(rows: int, cols: int, reduce=te.max):
    """out[i, j] = x[i, j] - reduce(x[i, :]), the reduction computed at out's row (held in a
    variable there), out's columns vectorized. The sign of a zero reduction shows in out:
    -0.0 - (-0.0) is +0.0, -0.0 - (+0.0) is -0.0."""
    x = te.placeholder((rows, cols), name="x")
    k = te.reduce_axis((0, cols), name="k")
    ext = te.compute((rows,), lambda i: reduce(x[i, k], axis=k), name="ext")
    out = te.compute((rows, cols), lambda i, j: x[i, j] - ext[i], name="out")
    s = te.create_schedule(out.op)
    i, j = s[out].op.axis
    s[out].vectorize(j)
    s[ext].compute_at(s[out], i)
    return s, [x, out]


def _rows(cols: int) -> np.ndarray:
    """Rows whose reduction's bits depend on the order, and rows whose do not."""
    rng = np.random.default_rng(7)
    rows = [rng.standard_normal(cols), -np.abs(rng.standard_normal(cols)) - 1]
    zeros = np.where(rng.random(cols) < 0.5, 0.0, -0.0)
    rows.append(zeros)  # only zeros, of both signs
    mixed = -np.abs(rng.standard_normal(cols))
    mixed[::3] = -0.0
    mixed[1::5] = 0.0
    rows.append(mixed)  # a zero is the max (and, negated, the min)
    rows.append(-mixed)
    nan = rng.standard_normal(cols)
    nan[cols // 2] = np.nan
    rows.append(nan)
    rows.append(np.full(cols, -np.inf))
    rows.append(np.full(cols, 2.5))
    late = rng.standard_normal(cols)
    late[-1] = 50.0  # the extremum in the tail after the last whole vector
    rows.append(late)
    return np.array(rows, dtype="float32")


@pytest.mark.parametrize("cols", [5, 37, 64])
@pytest.mark.parametrize("kind", ["max", "min"])
def test_a_row_extremum_gives_the_serial_loops_bits(cols, kind):
    reduce, numpy = getattr(te, kind), getattr(np, kind)
    x = _rows(cols)
    s, args = _centered(len(x), cols, reduce)
    kernel = build(s, args, target="c")
    assert f"tb_{kind}_run_float32(" in kernel.get_source()  # the vector path is there
    got, want = np.zeros_like(x), np.zeros_like(x)
    kernel(x, got)
    build(s, args, target="python")(x, want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    same = ~np.isnan(want)
    np.testing.assert_array_equal(got.view("uint32")[same], want.view("uint32")[same])
    finite = np.isfinite(x).all(axis=1)  # (a row of -inf reduces to the identity, -3.4e38)
    np.testing.assert_array_equal(got[finite], x[finite] - numpy(x[finite], axis=1, keepdims=True))


def test_a_zero_maximum_keeps_the_sign_the_last_zero_gave():
    """max(acc, x) keeps x when they compare equal: a row of +0.0 then -0.0 reduces to -0.0,
    so out's +0.0 - (-0.0) and -0.0 - (-0.0) are both +0.0 (a vector max would give +0.0 and
    make the second -0.0)."""
    x = np.array([[0.0, -0.0] * 8 + [-1.0] * 16], dtype="float32")
    s, args = _centered(1, 32)
    out = np.full_like(x, 7.0)
    build(s, args, target="c")(x, out)
    assert not np.signbit(out[0, :16]).any()


def test_a_row_read_through_an_index_from_data_is_left_as_written():
    """Its reads are checked one by one: no vector path."""
    x = te.placeholder((4, 16), name="x")
    rows = te.placeholder((4,), name="rows", dtype="int32")
    k = te.reduce_axis((0, 16), name="k")
    ext = te.compute((4,), lambda i: te.max(x[rows[i], k], axis=k), name="ext")
    out = te.compute((4, 16), lambda i, j: x[i, j] - ext[i], name="out")
    s = te.create_schedule(out.op)
    s[ext].compute_at(s[out], s[out].op.axis[0])
    kernel = build(s, [x, rows, out], target="c")
    assert "tb_max_run_float32(" not in kernel.get_source()
    a = np.random.default_rng(1).standard_normal((4, 16)).astype("float32")
    r = np.array([3, 0, 2, 1], dtype="int32")
    got = np.zeros((4, 16), "float32")
    kernel(a, r, got)
    np.testing.assert_array_equal(got, a - a[r].max(axis=1, keepdims=True))


def test_the_tvm_softmax_row_max_takes_the_vector_path():
    """The softmax of TVM's tutorials (max, exp, sum at the row), through the TVM names."""
    x = tvm.te.placeholder((8, 40), name="x")
    k1, k2 = tvm.te.reduce_axis((0, 40), name="k1"), tvm.te.reduce_axis((0, 40), name="k2")
    mx = tvm.te.compute((8,), lambda i: tvm.te.max(x[i, k1], axis=k1), name="mx")
    ex = tvm.te.compute((8, 40), lambda i, j: tvm.te.exp(x[i, j] - mx[i]), name="ex")
    sm = tvm.te.compute((8,), lambda i: tvm.te.sum(ex[i, k2], axis=k2), name="sm")
    out = tvm.te.compute((8, 40), lambda i, j: ex[i, j] / sm[i], name="out")
    s = tvm.te.create_schedule(out.op)
    for st in (mx, ex, sm):
        s[st].compute_at(s[out], out.op.axis[0])
    f = tvm.build(s, [x, out], target="c")
    assert "tb_max_run_float32(" in f.get_source()
    a = np.random.default_rng(2).standard_normal((8, 40)).astype("float32")
    got = np.zeros((8, 40), "float32")
    f(a, got)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-5)
