"""The op library computes what NumPy computes (through the reference evaluator and build)."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, reference
from schedule import ops

RNG = np.random.default_rng(7)


def data(shape, dtype="float32"):
    return RNG.integers(-4, 5, size=shape).astype(dtype)


def run(out, inputs):
    """The reference result, checked against a build of the default schedule."""
    ref = reference(out, inputs)[out]
    args = [*inputs, out]
    result = np.zeros(ref.shape, ref.dtype)
    build(te.create_schedule(out.op), args)(*inputs.values(), result)
    assert np.array_equal(result, ref)
    return ref


def test_data_movement():
    x = te.placeholder((4, 6), name="x")
    a = data((4, 6))
    assert np.array_equal(run(ops.transpose(x, [1, 0]), {x: a}), a.T)
    assert np.array_equal(run(ops.reverse(x, [1]), {x: a}), a[:, ::-1])
    assert np.array_equal(run(ops.slice(x, [1, 0], [4, 6], [2, 3]), {x: a}), a[1:4:2, 0:6:3])
    assert np.array_equal(run(ops.reshape(x, (3, 8)), {x: a}), a.reshape(3, 8))
    assert np.array_equal(run(ops.broadcast(x, (2, 4, 6), [1, 2]), {x: a}), np.broadcast_to(a, (2, 4, 6)))
    assert np.array_equal(run(ops.concatenate([x, x], 1), {x: a}), np.concatenate([a, a], 1))


def test_pad_with_interior_and_negative_padding():
    x = te.placeholder((3, 4), name="x")
    a = data((3, 4))
    got = run(ops.pad(x, 9.0, [(1, 2, 1), (-1, 1, 0)]), {x: a})
    want = np.full((1 + 3 + 2 + 2, 4), 9.0, "float32")
    want[1:6:2, :] = np.pad(a[:, 1:], ((0, 0), (0, 1)), constant_values=9.0)
    assert np.array_equal(got, want)


def test_reductions_and_dot():
    x = te.placeholder((3, 4, 5), name="x")
    a = data((3, 4, 5))
    assert np.array_equal(run(ops.reduce_sum(x, [0, 2]), {x: a}), a.sum(axis=(0, 2)))
    assert np.array_equal(run(ops.reduce_max(x, [1]), {x: a}), a.max(axis=1))
    p, q = te.placeholder((2, 3, 4), name="p"), te.placeholder((2, 4, 5), name="q")
    b, c = data((2, 3, 4)), data((2, 4, 5))
    assert np.array_equal(run(ops.dot(p, q, [0], [0], [2], [1]), {p: b, q: c}), b @ c)


def test_reduce_window_with_padding_and_stride():
    x = te.placeholder((7,), name="x")
    a = data((7,))
    got = run(ops.reduce_window(x, 0.0, [3], [2], [(1, 1)]), {x: a})
    padded = np.pad(a, 1)
    assert np.array_equal(got, np.array([padded[2 * k:2 * k + 3].sum() for k in range(4)], "float32"))


@pytest.mark.parametrize("stride, pad", [(1, (0, 0)), (2, (1, 2))])
def test_convolution_matches_a_direct_sum(stride, pad):
    x, w = te.placeholder((1, 9, 2), name="x"), te.placeholder((2, 3, 4), name="w")
    a, k = data((1, 9, 2)), data((2, 3, 4))
    got = run(ops.convolution(x, w, "b0f_i0o->b0f", [3], [stride], [pad]), {x: a, w: k})
    padded = np.pad(a, ((0, 0), pad, (0, 0)))
    n = (padded.shape[1] - 3) // stride + 1
    want = np.array([[[sum(padded[0, o * stride + t, c] * k[c, t, f] for t in range(3) for c in range(2))
                       for f in range(4)] for o in range(n)]], "float32")
    assert np.array_equal(got, want)


def test_dynamic_slice_clamps_its_offsets():
    x, o = te.placeholder((6,), name="x"), te.placeholder((), dtype="int32", name="o")
    a = data((6,))
    for offset, start in ((2, 2), (5, 3), (-1, 0)):
        got = run(ops.dynamic_slice(x, [o], [3]), {x: a, o: np.array(offset, "int32")})
        assert np.array_equal(got, a[start:start + 3])


def test_scaled_dot_scales_blocks():
    a, b = te.placeholder((2, 10), name="a"), te.placeholder((10, 2), name="b")
    sa, sb = te.placeholder((2, 2), name="sa"), te.placeholder((2, 2), name="sb")
    x, y, u, v = data((2, 10)), data((10, 2)), data((2, 2)), data((2, 2))
    got = run(ops.scaled_dot(a, b, sa, sb, lhs_contracting=[1], rhs_contracting=[0]), {a: x, b: y, sa: u, sb: v})
    want = (x * np.repeat(u, 5, axis=1)) @ (y * np.repeat(v, 5, axis=0))
    assert np.array_equal(got, want)
