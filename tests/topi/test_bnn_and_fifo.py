"""Binary neural network operators (sign packing, binary dense) and the FIFO buffer, under
their schedules, against NumPy (``np.packbits``, the dot product of +-1 vectors, a
concatenation)."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target

RNG = np.random.default_rng(37)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("style", ["generic", "x86", "cuda"])
def test_packed_signs_and_their_dot_product(style):
    a = RNG.standard_normal((3, 64)).astype("float32")
    a[0, 5] = 0.0  # zero counts as positive
    b = (RNG.integers(2, size=(4, 64)) * 2 - 1).astype("float32")
    A, B = te.placeholder(a.shape, name="A"), te.placeholder(b.shape, name="B")
    PA, PB = topi.nn.binarize_pack(A), topi.nn.binarize_pack(B, axis=1)
    A1, B1 = te.placeholder(PA.shape, "uint32", "A1"), te.placeholder(PB.shape, "uint32", "B1")
    C = topi.nn.binary_dense(A1, B1)
    with Target("cuda" if style == "cuda" else "llvm"):
        schedules = [getattr(topi, style).schedule_binarize_pack([PA]), getattr(topi, style).schedule_binarize_pack(
            [PB]), getattr(topi, style).schedule_binary_dense([C])]
    pa, pb, c = np.zeros((3, 2), "uint32"), np.zeros((4, 2), "uint32"), np.full((3, 4), np.nan, "float32")
    build(schedules[0], [A, PA])(a, pa)
    build(schedules[1], [B, PB])(b, pb)
    build(schedules[2], [A1, B1, C])(pa, pb, c)
    want = np.packbits(a >= 0, axis=1).view(">u4").astype("uint32")  # the first element in the highest bit
    np.testing.assert_array_equal(pa, want)
    signs = np.where(a >= 0, 1.0, -1.0)
    np.testing.assert_array_equal(c, signs @ b.T)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_fifo_buffer_drops_the_oldest_and_appends_the_data(axis):
    buf = RNG.standard_normal((5, 6, 4)).astype("float32")
    shape = list(buf.shape)
    shape[axis] = 2
    data = RNG.standard_normal(shape).astype("float32")
    D, Bf = te.placeholder(data.shape, name="D"), te.placeholder(buf.shape, name="Bf")
    out = topi.nn.fifo_buffer(D, Bf, axis)
    with Target("llvm"):
        s = topi.x86.schedule_injective([out])
    got = np.full(buf.shape, np.nan, "float32")
    build(s, [D, Bf, out])(data, buf, got)
    joined = np.concatenate([buf, data], axis=axis)
    np.testing.assert_array_equal(got, np.take(joined, range(2, 2 + buf.shape[axis]), axis=axis))


@pytest.mark.parametrize("make, message", [
    (lambda: topi.nn.binarize_pack(te.placeholder((2, 40))), "multiple of 32"),
    (lambda: topi.nn.binary_dense(te.placeholder((2, 2)), te.placeholder((3, 2))), "2-d uint32"),
    (lambda: topi.nn.fifo_buffer(te.placeholder((3, 4)), te.placeholder((2, 4)), 0), "no longer there"),
    (lambda: topi.nn.fifo_buffer(te.placeholder((1, 3)), te.placeholder((2, 4)), 0), "must match the buffer"),
])
def test_bad_arguments_are_refused(make, message):
    with pytest.raises(ValueError) as err:
        make()
    assert message in str(err.value)
