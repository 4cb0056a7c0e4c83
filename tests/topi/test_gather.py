"""topi's index-reading transforms (gather, gather_nd, one_hot, sequence_mask, reverse_sequence,
expand_like) and shape builders (arange, shape, ndarray_size) against NumPy; refusals."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from topi import testing as ref

RNG = np.random.default_rng(13)


def _run(out, inputs, arrays):
    result = np.full([int(d) for d in out.shape], -7, dtype=out.dtype)
    build(te.create_schedule(out.op), [*inputs, out])(*arrays, result)
    return result


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather(axis):
    data = RNG.standard_normal((4, 5)).astype("float32")
    indices = RNG.integers(0, data.shape[axis], size=(4, 5) if axis else (3, 5)).astype("int32")
    D, I = te.placeholder(data.shape, name="D"), te.placeholder(indices.shape, name="I", dtype="int32")
    np.testing.assert_array_equal(_run(topi.gather(D, axis, I), [D, I], [data, indices]),
                                  ref.gather_python(data, axis, indices))


@pytest.mark.parametrize("indices", [[[0, 2], [1, 0]], [[1, 3, 0]], [[0, 1], [2, 3], [1, 0]]])
def test_gather_nd(indices):
    a = np.arange(2 * 4 * 3, dtype="float32").reshape(2, 4, 3)
    idx = np.array(indices, dtype="int64")
    idx = idx % np.array(a.shape[:len(idx)]).reshape(-1, *[1] * (idx.ndim - 1))
    A, I = te.placeholder(a.shape, name="A"), te.placeholder(idx.shape, name="I", dtype="int64")
    np.testing.assert_array_equal(_run(topi.gather_nd(A, I), [A, I], [a, idx]), ref.gather_nd_python(a, idx))


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis):
    indices = RNG.integers(0, 4, size=(3, 2)).astype("int32")
    I = te.placeholder(indices.shape, name="I", dtype="int32")
    out = topi.one_hot(I, 5, -1, 4, axis, "int32")
    np.testing.assert_array_equal(_run(out, [I], [indices]), ref.one_hot(indices, 5, -1, 4, axis, "int32"))


@pytest.mark.parametrize("axis", [0, 1])
def test_sequence_mask_and_reverse_sequence(axis):
    shape = (5, 3, 2) if axis == 0 else (3, 5, 2)
    data = RNG.standard_normal(shape).astype("float32")
    lengths = np.array([0, 3, 7], "int32")  # none, some, more than the axis
    D, L = te.placeholder(shape, name="D"), te.placeholder((3,), name="L", dtype="int32")
    masked = _run(topi.sequence_mask(D, L, mask_value=-1.0, axis=axis), [D, L], [data, lengths])
    np.testing.assert_array_equal(masked, ref.sequence_mask(data, lengths, -1.0, axis))
    reversed_ = _run(topi.reverse_sequence(D, L, seq_axis=axis, batch_axis=1 - axis), [D, L], [data, lengths])
    expected = data.copy()
    for b, n in enumerate(lengths):
        n = min(int(n), shape[axis])
        if n > 1:
            sl = [slice(None)] * 3
            sl[1 - axis], sl[axis] = b, slice(0, n)
            expected[tuple(sl)] = np.flip(data[tuple(sl)], axis=0)
    np.testing.assert_array_equal(reversed_, expected)
    with pytest.raises(ValueError, match="one length per batch"):
        topi.reverse_sequence(D, te.placeholder((4,), name="L4", dtype="int32"), seq_axis=axis, batch_axis=1 - axis)


def test_expand_like_arange_shape_and_size():
    a = RNG.standard_normal((3, 4)).astype("float32")
    A, B = te.placeholder((3, 4), name="A"), te.placeholder((3, 2, 4, 5), name="B")
    got = _run(topi.expand_like(A, B, [1, 3]), [A, B], [a, np.zeros((3, 2, 4, 5), "float32")])
    np.testing.assert_array_equal(got, np.broadcast_to(a[:, None, :, None], (3, 2, 4, 5)))
    for args, expected in [((5,), np.arange(5)), ((2, 9, 3), np.arange(2, 9, 3)), ((1.0, -2.0, -0.5),
                                                                                     np.arange(1.0, -2.0, -0.5))]:
        out = topi.arange(*args)
        np.testing.assert_allclose(_run(out, [], []), expected.astype("float32"))
    np.testing.assert_array_equal(_run(topi.shape(B, "int64"), [B], [np.zeros((3, 2, 4, 5), "float32")]),
                                  [3, 2, 4, 5])
    assert _run(topi.ndarray_size(B), [B], [np.zeros((3, 2, 4, 5), "float32")]) == 120


def test_refusals():
    A = te.placeholder((3, 4), name="A")
    F = te.placeholder((3, 4), name="F")
    with pytest.raises(TypeError, match="indices must be integers"):
        topi.gather(A, 0, F)
    with pytest.raises(ValueError, match="out of range"):
        topi.gather(A, 2, te.placeholder((3, 4), name="I", dtype="int32"))
    with pytest.raises(ValueError, match="step must not be 0"):
        topi.arange(0, 5, 0)
    with pytest.raises(ValueError, match="axis is 0 or 1"):
        topi.sequence_mask(A, te.placeholder((3,), name="L", dtype="int32"), axis=2)
    with pytest.raises(ValueError, match="batch_dims"):
        topi.gather_nd(A, te.placeholder((1, 2), name="I", dtype="int32"), batch_dims=1)


@pytest.mark.parametrize("data_shape, target_shape", [((2, 3), (3,)), ((2, 3, 4), (2, 1, 4)),
                                                      ((2, 3, 4, 5), (3, 1, 5)), ((4, 1, 3), (1, 3))])
def test_collapse_sum_undoes_a_broadcast(data_shape, target_shape):
    a = RNG.standard_normal(data_shape).astype("float32")
    A = te.placeholder(data_shape, name="A")
    extra = len(data_shape) - len(target_shape)
    axes = tuple(k for k in range(len(data_shape))
                 if k < extra or (target_shape[k - extra] == 1 and data_shape[k] != 1))
    expected = a.sum(axis=axes).reshape(target_shape)
    np.testing.assert_allclose(_run(topi.collapse_sum(A, target_shape), [A], [a]), expected, rtol=1e-5, atol=1e-6)


def test_collapse_sum_with_symbolic_extents_and_refusals():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((2, n, 4, m), name="A")
    out = topi.collapse_sum(A, (n, 1, m))
    a = RNG.standard_normal((2, 3, 4, 5)).astype("float32")
    got = np.full((3, 1, 5), np.nan, "float32")
    build(te.create_schedule(out.op), [A, out])(a, got)
    np.testing.assert_allclose(got, a.sum(axis=(0, 2)).reshape(3, 1, 5), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="more dimensions"):
        topi.collapse_sum(te.placeholder((3,), name="B"), (1, 3))


@pytest.mark.parametrize("indices, shape", [([0, 1, 2, 3], [2, 2]), ([144], [5, 5, 5, 2]), (144, [5, 5, 5, 2]),
                                            ([100, 13, 5], [5, 5, 5, 2])])
def test_unravel_index_reads_the_shape_at_run_time(indices, shape):
    x, y = np.array(indices, "int64"), np.array(shape, "int32")
    X, Y = te.placeholder(x.shape, name="X", dtype="int64"), te.placeholder(y.shape, name="Y", dtype="int32")
    np.testing.assert_array_equal(_run(topi.unravel_index(X, Y), [X, Y], [x, y]), np.array(np.unravel_index(x, y)))
