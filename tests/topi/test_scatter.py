"""The region-writing transforms (strided_set, sparse_to_dense, matrix_set_diag, trilu), the
advanced indexing adv_index, and tile and reshape of an empty axis, against NumPy: slicing assignment,
scatter loops, np.triu/np.tril and fancy indexing."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from topi import testing as ref

RNG = np.random.default_rng(21)


def _run(out, inputs, arrays):
    got = np.full([int(d) for d in out.shape], np.nan if out.dtype.startswith("float") else -7, out.dtype)
    build(te.create_schedule(out.op), [*inputs, out])(*arrays, got)
    return got


@pytest.mark.parametrize("begin, end, strides", [([0, 3, 0], [4, 1, 4], [1, -1, 2]), ([1, -1, 0], [4, -5, 3], [2, -1, 1]),
                                                 ([1, 1], [4, 4, 3], None), ([-2, 0, 5], [9, 3, -9], [1, 2, -2])])
def test_strided_set_is_slice_assignment(begin, end, strides):
    a = RNG.standard_normal((3, 4, 3)).astype("float32")
    region = a[tuple(slice(begin[k] if k < len(begin) else None, end[k] if k < len(end) else None,
                           strides[k] if strides and k < len(strides) else None) for k in range(3))]
    v = RNG.standard_normal(region.shape).astype("float32")
    A, V = te.placeholder(a.shape, name="A"), te.placeholder(v.shape, name="V")
    B, E = te.placeholder((len(begin),), name="B", dtype="int32"), te.placeholder((len(end),), name="E", dtype="int32")
    inputs, arrays = [A, V, B, E], [a, v, np.array(begin, "int32"), np.array(end, "int32")]
    if strides is not None:
        S = te.placeholder((len(strides),), name="S", dtype="int32")
        inputs, arrays = [*inputs, S], [*arrays, np.array(strides, "int32")]
    got = _run(topi.strided_set(A, V, B, E, S if strides is not None else None), inputs, arrays)
    expect = a.copy()
    expect[tuple(slice(begin[k] if k < len(begin) else None, end[k] if k < len(end) else None,
                       strides[k] if strides and k < len(strides) else None) for k in range(3))] = v
    np.testing.assert_array_equal(got, expect)
    np.testing.assert_array_equal(ref.strided_set_python(a, v, begin, end, strides), expect)


@pytest.mark.parametrize("indices, values, default, shape", [
    (1, 3, 0, [5]), ([0, 1, 4, 1], [3, 5, 7, 9], 2, [5]), ([[0, 0], [1, 2], [0, 0]], [1, 2, 6], 4, [3, 4]),
    ([0, 2], 1.5, None, [4]),
])
def test_sparse_to_dense_is_a_scatter(indices, values, default, shape):
    ind, val = np.array(indices, "int32"), np.array(values, "float32")
    I, V = te.placeholder(ind.shape, name="I", dtype="int32"), te.placeholder(val.shape, name="V")
    inputs, arrays = [I, V], [ind, val]
    if default is None:
        out = topi.sparse_to_dense(I, shape, V)
    else:
        D = te.placeholder((), name="D")
        out = topi.sparse_to_dense(I, shape, V, D)
        inputs, arrays = [*inputs, D], [*arrays, np.array(default, "float32")]
    got = _run(out, inputs, arrays)
    expect = np.full(shape, 0 if default is None else default, "float32")
    rows = ind.reshape(-1, len(shape)) if ind.ndim == 2 else ind.reshape(-1, 1)
    for k, at in enumerate(rows):  # in order: the last write wins
        expect[tuple(at)] = val.reshape(-1)[k] if val.ndim else val
    np.testing.assert_array_equal(got, expect)


@pytest.mark.parametrize("shape, dshape, k, align", [((2, 2), (2,), 0, "RIGHT_LEFT"), ((4, 3, 3), (4, 2), -1, "RIGHT_LEFT"),
                                                     ((2, 3, 4), (2, 3), 1, "LEFT_LEFT"),
                                                     ((2, 3, 4), (2, 4, 3), (-1, 2), "LEFT_RIGHT"),
                                                     ((2, 3, 4), (2, 4, 3), (-1, 2), "RIGHT_LEFT"),
                                                     ((5, 3), (3, 3), (-2, 0), "RIGHT_RIGHT")])
def test_matrix_set_diag_walks_each_diagonal(shape, dshape, k, align):
    a = RNG.integers(-100, 100, shape).astype("int32")
    d = RNG.integers(-100, 100, dshape).astype("int32")
    A, D = te.placeholder(shape, name="A", dtype="int32"), te.placeholder(dshape, name="D", dtype="int32")
    got = _run(topi.matrix_set_diag(A, D, k, align), [A, D], [a, d])
    expect = a.copy()
    low, high = (k, k) if isinstance(k, int) else k
    rows, cols = shape[-2:]
    for diag in range(low, high + 1):
        cells = [(r, r + diag) for r in range(rows) if 0 <= r + diag < cols]
        side = align.split("_")[0 if diag >= 0 else 1]
        shift = dshape[-1] - len(cells) if low != high and side == "RIGHT" else 0
        for p, (r, c) in enumerate(cells):
            expect[..., r, c] = d[..., p + shift] if low == high else d[..., high - diag, p + shift]
    np.testing.assert_array_equal(got, expect)
    np.testing.assert_array_equal(ref.matrix_set_diag(a, d, k, align), expect)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("k", [-2, 0, 1])
def test_trilu_is_numpys_triangle(upper, k):
    a = RNG.standard_normal((3, 4, 5)).astype("float32")
    A = te.placeholder(a.shape, name="A")
    got = _run(topi.trilu(A, k, upper), [A], [a])
    np.testing.assert_array_equal(got, np.triu(a, k) if upper else np.tril(a, k))


@pytest.mark.parametrize("index_shapes", [[(2,), (2,), (1,)], [(4, 1), (1, 7)], [(1, 2, 1), (1, 2, 7)]])
def test_adv_index_is_numpys_fancy_indexing(index_shapes):
    a = RNG.standard_normal((10, 8, 7)).astype("float32")
    idx = [RNG.integers(0, a.shape[i], s).astype("int64") for i, s in enumerate(index_shapes)]
    A = te.placeholder(a.shape, name="A")
    I = [te.placeholder(s, name=f"i{k}", dtype="int64") for k, s in enumerate(index_shapes)]
    np.testing.assert_array_equal(_run(topi.adv_index(A, I), [A, *I], [a, *idx]), a[tuple(idx)])


def test_tile_of_an_empty_axis_and_refusals():
    A = te.placeholder((4, 0), name="A")
    out = topi.tile(A, (5,))
    got = np.zeros((4, 0), "float32")
    build(te.create_schedule(out.op), [A, out])(np.zeros((4, 0), "float32"), got)
    assert got.shape == np.tile(np.zeros((4, 0)), 5).shape
    reshaped = topi.reshape(A, (2, 0, 2))
    empty = np.zeros((2, 0, 2), "float32")
    build(te.create_schedule(reshaped.op), [A, reshaped])(np.zeros((4, 0), "float32"), empty)
    assert empty.shape == np.zeros((4, 0)).reshape(2, 0, 2).shape
    with pytest.raises(ValueError, match="do not broadcast"):
        topi.adv_index(te.placeholder((5, 5)), [te.placeholder((2,), dtype="int32"), te.placeholder((3,), dtype="int32")])
    with pytest.raises(TypeError, match="integers"):
        topi.strided_set(te.placeholder((3,)), te.placeholder((1,)), te.placeholder((1,)), te.placeholder((1,), dtype="int32"))
    with pytest.raises(ValueError, match="low <= high"):
        topi.matrix_set_diag(te.placeholder((3, 3)), te.placeholder((3, 3)), (2, 1))
    with pytest.raises(ValueError, match="do not fit an output"):
        topi.sparse_to_dense(te.placeholder((2, 3), dtype="int32"), [4, 4], te.placeholder((2,)))


@pytest.mark.parametrize("begin, end, strides", [([0, 0, 0], [4, -5, 4], [1, -1, 2]), ([1, 1, 0], [4, 4, 3], [2, 1, 1]),
                                                 ([-2, 3, 1], [9, -9, 3], None)])
def test_strided_slice_with_bounds_read_at_run_time(begin, end, strides):
    a = RNG.standard_normal((3, 4, 3)).astype("float32")
    A = te.placeholder(a.shape, name="A")
    B, E = te.placeholder((3,), name="B", dtype="int64"), te.placeholder((3,), name="E", dtype="int64")
    inputs, arrays = [A, B, E], [a, np.array(begin, "int64"), np.array(end, "int64")]
    S = None
    if strides is not None:
        S = te.placeholder((3,), name="S", dtype="int64")
        inputs, arrays = [*inputs, S], [*arrays, np.array(strides, "int64")]
    out = topi.strided_slice(A, B, E, S)
    expect = a[tuple(slice(b, e, s) for b, e, s in zip(begin, end, strides or [1, 1, 1]))]
    got = np.full(expect.shape, np.nan, "float32")  # the output's shape: the array given
    build(te.create_schedule(out.op), [*inputs, out])(*arrays, got)
    np.testing.assert_array_equal(got, expect)
    too_big = np.zeros([d + 1 for d in expect.shape], "float32")
    with pytest.raises(Exception, match="outside|out of|bounds"):
        build(te.create_schedule(out.op), [*inputs, out])(*arrays, too_big)
