"""topi's shape and index transforms against NumPy, on both targets and both bound modes:
reshape, transpose, concatenate, split, take (clip, wrap, fast), strided_slice, expand_dims,
squeeze, broadcast_to, stack, tile, repeat, flip, layout_transform; bad input refused."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target
from topi import testing as ref

RNG = np.random.default_rng(2)


def _run(outputs, inputs, arrays, exact=False, shapes=None):
    s = te.create_schedule([o.op for o in outputs])
    f = build(s, [*inputs, *outputs], exact=exact)
    outs = [np.full(shape or [int(d) for d in o.shape], -9, dtype=o.dtype)
            for o, shape in zip(outputs, shapes or [None] * len(outputs))]
    f(*arrays, *outs)
    return outs


def _nchwc(a, c):
    n, ch, h, w = a.shape
    return a.reshape(n, ch // c, c, h, w).transpose(0, 1, 3, 4, 2)


@pytest.mark.parametrize("exact", [False, True])
def test_transforms_equal_numpy(exact):
    """Every transform in one kernel, each output checked against NumPy."""
    a = RNG.standard_normal((2, 6, 3, 4)).astype("float32")
    b = RNG.standard_normal((2, 2, 3, 4)).astype("float32")
    idx = np.array([[0, 5, -1], [7, 2, 3]], dtype="int32")
    A, B, I = te.placeholder(a.shape, name="A"), te.placeholder(b.shape, name="B"), te.placeholder(idx.shape,
                                                                                                   name="I", dtype="int32")
    parts = topi.split(A, [1, 4], axis=1)
    cases = [
        (topi.reshape(A, (4, -1, 6)), a.reshape(4, -1, 6)),
        (topi.transpose(A, (2, 0, 3, 1)), a.transpose(2, 0, 3, 1)),
        (topi.transpose(A), a.transpose()),
        (topi.concatenate([A, B, A], axis=1), np.concatenate([a, b, a], axis=1)),
        *[(p, e) for p, e in zip(parts, np.split(a, [1, 4], axis=1))],
        (topi.take(A, I, axis=1, mode="clip"), np.take(a, idx, axis=1, mode="clip")),
        (topi.take(A, I, axis=1, mode="wrap"), np.take(a, idx, axis=1, mode="wrap")),
        (topi.take(A, I), np.take(a, np.clip(idx, 0, a.size - 1))),
        (topi.take(A, 3, axis=-1, mode="fast"), np.take(a, 3, axis=-1)),
        (topi.strided_slice(A, [1, -1, 0], [2, 0, 3], [1, -2, 2]), a[1:2, -1:0:-2, 0:3:2]),
        (topi.strided_slice(A, [1, 2], [-1, 2], axes=[1, 3], slice_mode="size"), a[:, 1:, :, 2:4]),
        (topi.expand_dims(A, 1, 2), a[:, None, None]),
        (topi.squeeze(topi.expand_dims(A, -1), axis=-1), a),
        (topi.broadcast_to(topi.squeeze(topi.strided_slice(B, [0], [1]), 0), (5, 2, 3, 4)),
         np.broadcast_to(b[0], (5, 2, 3, 4))),
        (topi.stack([A, A * 2.0], axis=2), np.stack([a, a * 2], axis=2)),
        (topi.tile(A, (2, 1, 1, 2)), np.tile(a, (2, 1, 1, 2))),
        (topi.tile(B, (3,)), np.tile(b, 3)),
        (topi.repeat(A, 2, 2), np.repeat(a, 2, axis=2)),
        (topi.flip(A, 1), np.flip(a, 1)),
        (topi.layout_transform(A, "NCHW", "NCHW3c"), _nchwc(a, 3)),
        (topi.layout_transform(topi.layout_transform(A, "NCHW", "NCHW2c"), "NCHW2c", "NHWC"), a.transpose(0, 2, 3, 1)),
        (topi.layout_transform(A, "NCHW", "NCHW4c"), _nchwc(np.pad(a, ((0, 0), (0, 2), (0, 0), (0, 0))), 4)),
    ]
    got = _run([t for t, _ in cases], [A, B, I], [a, b, idx], exact)
    for (t, want), out in zip(cases, got):
        assert out.shape == want.shape, t.op.name
        np.testing.assert_array_equal(out, want, err_msg=t.op.name)
    assert {t.op.tag for t, _ in cases} <= {"injective", "broadcast"}


def test_strided_slice_reference_and_symbolic_shapes():
    data = np.arange(24, dtype="float32").reshape(4, 6)
    assert np.array_equal(ref.strided_slice_python(data, [1, 5], [4, 0], [2, -2]), data[1:4:2, 5:0:-2])
    n = te.var("n")
    A = te.placeholder((n, 6), name="A")
    outputs = [topi.strided_slice(A, [1, 2], [100, 5]), topi.reshape(A, (n, 2, 3)), topi.concatenate([A, A], 0),
               topi.take(A, 4, axis=1)]
    got = _run(outputs, [A], [data], True, shapes=[(3, 3), (4, 2, 3), (8, 6), (4,)])
    for out, want in zip(got, [data[1:, 2:5], data.reshape(4, 2, 3), np.concatenate([data, data]), data[:, 4]]):
        np.testing.assert_array_equal(out, want)


def _refused(call, error, *words):
    with pytest.raises(error) as info:
        call()
    for w in words:
        assert w in str(info.value), str(info.value)


def test_bad_transforms_are_refused_with_a_message():
    A = te.placeholder((2, 6, 3), name="A")
    _refused(lambda: topi.reshape(A, (5, 8)), ValueError, "36 elements")
    _refused(lambda: topi.reshape(A, (-1, -1)), ValueError, "-1")
    _refused(lambda: topi.transpose(A, (0, 0, 1)), ValueError, "permutation")
    _refused(lambda: topi.concatenate([A, te.placeholder((3, 6, 3), name="B")], axis=1), ValueError, "dimension 0")
    _refused(lambda: topi.concatenate([], 0), TypeError, "non-empty")
    _refused(lambda: topi.split(A, 4, axis=1), ValueError, "divide")
    _refused(lambda: topi.split(A, [3, 1], axis=1), ValueError, "increase")
    _refused(lambda: topi.take(A, [0, 1]), TypeError, "placeholder")
    _refused(lambda: topi.take(A, 0, mode="raise"), ValueError, "clip")
    _refused(lambda: topi.take(A, te.placeholder((2,), name="F")), TypeError, "integers")
    _refused(lambda: topi.squeeze(A, 1), ValueError, "length 6")
    _refused(lambda: topi.broadcast_to(A, (2, 5, 3)), ValueError, "broadcast")
    _refused(lambda: topi.strided_slice(A, [0], [1], [0]), ValueError, "stride")
    _refused(lambda: topi.layout_transform(A, "NCHW", "NCHW4c"), ValueError, "4 axes")
    _refused(lambda: topi.layout_transform(A, "NCW", "NC4w4c"), ValueError, "twice")
    _refused(lambda: topi.layout_transform(A, "NCW", "NCw"), ValueError, "factor")
    _refused(lambda: topi.layout_transform(A, "NCW", "NCH"), ValueError, "same axes")
    _refused(lambda: topi.tile(A, (0,)), ValueError, "positive")
    _refused(lambda: topi.repeat(A, 2, 3), ValueError, "axis")
    _refused(lambda: topi.expand_dims(A, 5), ValueError, "axis")


def test_reshape_into_fewer_elements_takes_the_first_ones_and_into_more_is_refused():
    A = te.placeholder((2, 5, 5), name="A")
    a = RNG.standard_normal((2, 5, 5)).astype("float32")
    (out,) = _run([topi.reshape(A, (4, 8))], [A], [a])
    np.testing.assert_array_equal(out, a.reshape(-1)[:32].reshape(4, 8))
    with pytest.raises(ValueError, match="cannot reshape 50 elements"):
        topi.reshape(A, (1, 51))


@pytest.mark.parametrize("shape", [(64, 96), (33, 70)])
def test_the_cuda_transpose_schedule_tiles_through_shared_memory(shape):
    a = np.random.default_rng(sum(shape)).random(shape, "f4")
    A = te.placeholder(shape, name="A")
    with Target("cuda"):
        T = topi.transpose(A)
        s = topi.cuda.schedule_transpose(T)
    got = np.zeros(shape[::-1], "f4")
    f = build(s, [A, T], target="cuda")
    f(a, got)
    np.testing.assert_array_equal(got, a.T)
    assert "__shared__ float A_shared[" in f.imported_modules[0].get_source()
