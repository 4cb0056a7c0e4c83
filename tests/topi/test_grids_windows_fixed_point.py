"""``topi.meshgrid``, ``sliding_window``, ``scatter_elements``, ``invert_permutation`` and the
fixed-point multiplies against NumPy (and exact rational arithmetic), their CUDA forms, and
their refusals."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _run(outs, inputs, arrays, s=None):
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    s = s or te.create_schedule([o.op for o in outs])
    got = [np.zeros([int(d) for d in o.shape], o.dtype) for o in outs]
    build(s, [*inputs, *outs])(*arrays, *got)
    return got


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_equals_numpys_for_vectors_and_a_scalar(indexing):
    rng = np.random.default_rng(1)
    a, b, c = te.placeholder((3,), name="a"), te.placeholder((4,), name="b"), te.placeholder((), name="c")
    av, bv, cv = rng.random(3, "f4"), rng.random(4, "f4"), np.array(5.0, "f4")
    got = _run(topi.meshgrid([a, b, c], indexing), [a, b, c], [av, bv, cv])
    for g, w in zip(got, np.meshgrid(av, bv, cv.reshape(1), indexing=indexing)):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("shape, axis, window, strides", [((2, 7, 6), 1, [3, 2], [2, 1]), ((9,), 0, [4], [3]),
                                                          ((3, 4, 5), 0, [3, 2, 5], [1, 2, 1])])
def test_sliding_window_equals_numpys_view(shape, axis, window, strides):
    d = np.random.default_rng(2).random(shape, "f4")
    D = te.placeholder(shape, name="D")
    got = _run(topi.sliding_window(D, axis, window, strides), [D], [d])[0]
    axes = tuple(range(axis, len(shape)))
    view = np.lib.stride_tricks.sliding_window_view(d, window, axis=axes)
    want = view[(slice(None),) * axis + tuple(slice(None, None, s) for s in strides)]
    np.testing.assert_array_equal(got, want)


def _scatter_reference(data, idx, upd, axis, reduction):
    out = data.copy()
    for pos in np.ndindex(idx.shape):
        dst = list(pos)
        dst[axis] = idx[pos] % data.shape[axis]
        dst = tuple(dst)
        old, new = out[dst], upd[pos]
        out[dst] = {"update": new, "add": old + new, "mul": old * new, "mean": (old + new) / 2,
                    "min": min(old, new), "max": max(old, new)}[reduction]
    return out


@pytest.mark.parametrize("style", ["generic", "cuda"])
@pytest.mark.parametrize("reduction", ["update", "add", "mul", "mean", "min", "max"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_scatter_elements_combines_updates_in_order_with_negative_indices(style, reduction, axis):
    rng = np.random.default_rng(3)
    d = rng.random((4, 5, 3), "f4")
    ishape = [2, 3, 2]
    idx = rng.integers(-d.shape[axis], d.shape[axis], ishape).astype("int64")
    upd = rng.random(ishape, "f4")
    D, I, U = te.placeholder(d.shape, name="D"), te.placeholder(ishape, "int64", "I"), te.placeholder(ishape, name="U")
    with Target("cuda" if style == "cuda" else "llvm"):
        out = (topi.cuda if style == "cuda" else topi).scatter_elements(D, I, U, axis, reduction)
        s = getattr(topi, style).schedule_extern([out])
    got = _run(out, [D, I, U], [d, idx, upd], s)[0]
    np.testing.assert_allclose(got, _scatter_reference(d, idx, upd, axis % 3, reduction), rtol=1e-6)


@pytest.mark.parametrize("style", ["generic", "cuda"])
def test_invert_permutation_is_numpys_argsort_of_a_permutation(style):
    p = np.random.default_rng(4).permutation(37).astype("int32")
    P = te.placeholder((37,), "int32", "P")
    with Target("cuda" if style == "cuda" else "llvm"):
        out = (topi.cuda if style == "cuda" else topi).invert_permutation(P)
        s = getattr(topi, style).schedule_extern([out])
    np.testing.assert_array_equal(_run(out, [P], [p], s)[0], np.argsort(p))


def _fixed_point(x, multiplier, shift):
    """``x * multiplier * 2**(shift - 31)``, rounded to nearest with halves up, exactly."""
    value = Fraction(int(x) * multiplier) * Fraction(2) ** (shift - 31)
    return math.floor(value + Fraction(1, 2))


@pytest.mark.parametrize("multiplier, shift", [(1 << 30, 1), (1 << 30, 4), (1 << 30, -3), (1395864371, -3),
                                               (1395864371, 2), ((1 << 31) - 1, 0), (1 << 30 | 12345, -7)])
def test_fixed_point_multiply_rounds_the_exact_product_to_nearest(multiplier, shift):
    x = np.random.default_rng(5).integers(-2 ** 22, 2 ** 22, 200).astype("int32")
    x[:4] = [0, 1, -1, 3]
    X = te.placeholder(x.shape, "int32", "X")
    got = _run(topi.fixed_point_multiply(X, multiplier, shift), [X], [x])[0]
    np.testing.assert_array_equal(got, [_fixed_point(v, multiplier, shift) for v in x])


def test_fixed_point_multiply_per_axis_takes_each_channels_multiplier_and_shifts():
    rng = np.random.default_rng(6)
    x = rng.integers(-2 ** 20, 2 ** 20, (2, 4, 3)).astype("int32")
    mult = rng.integers(1 << 30, (1 << 31) - 1, 4).astype("int32")
    lshift, rshift = np.array([0, 2, 0, 1], "int32"), np.array([3, 0, 5, 0], "int32")
    X, M = te.placeholder(x.shape, "int32", "X"), te.placeholder((4,), "int32", "M")
    L, R = te.placeholder((4,), "int32", "L"), te.placeholder((4,), "int32", "R")
    out = topi.fixed_point_multiply_per_axis(X, M, L, R, 1, 1, [1])
    got = _run(out, [X, M, L, R], [x, mult, lshift, rshift])[0]
    want = [[[_fixed_point(x[b, c, w], int(mult[c]), int(lshift[c]) - int(rshift[c])) for w in range(3)]
             for c in range(4)] for b in range(2)]
    np.testing.assert_array_equal(got, want)


def test_bad_arguments_are_refused_by_name():
    a = te.placeholder((3, 2), name="a")
    with pytest.raises(ValueError, match="1-d tensors or scalars"):
        topi.meshgrid([a], "ij")
    with pytest.raises(ValueError, match="indexing"):
        topi.meshgrid([te.placeholder((3,), name="v")], "ji")
    with pytest.raises(ValueError, match="window_shape and strides"):
        topi.sliding_window(a, 0, [2], [1])
    with pytest.raises(ValueError, match="reduction"):
        topi.scatter_elements(a, te.placeholder((3, 2), "int32", "i"), a, 0, "sub")
    with pytest.raises(ValueError, match="share a shape"):
        topi.scatter_elements(a, te.placeholder((3,), "int32", "i"), te.placeholder((3,), name="u"))
    with pytest.raises(ValueError, match="'mean' reduction takes floating-point"):
        topi.scatter_elements(te.placeholder((3,), "int32", "d"), te.placeholder((3,), "int32", "i"),
                              te.placeholder((3,), "int32", "u"), 0, "mean")
    with pytest.raises(ValueError, match="1-d integer"):
        topi.invert_permutation(te.placeholder((3,), name="f"))
    with pytest.raises(TypeError, match="multiplier and shift are ints"):
        topi.fixed_point_multiply(te.placeholder((3,), "int32", "x"), 0.5, 1)


@pytest.mark.parametrize("normalized", [False, True])
def test_stft_is_the_transform_of_windowed_frames(normalized):
    """TVM's definition: frames ``hop`` apart, the angle over the window length."""
    rng = np.random.default_rng(7)
    x, window = rng.standard_normal((2, 23)), rng.random(6)
    n_fft, hop, win = 8, 4, 6
    frames = (23 - win) // hop + 1
    X, W = te.placeholder(x.shape, "float64", "X"), te.placeholder(window.shape, "float64", "W")
    out = topi.stft(X, n_fft, hop, win, W, normalized, True, (2, n_fft // 2 + 1, frames, 2))
    got = _run(out, [X, W], [x, window])[0]
    f = np.arange(n_fft // 2 + 1)[:, None]
    wave = np.exp(-2j * np.pi * f * np.arange(win) / win)  # (frequencies, window)
    segments = np.stack([x[:, t * hop:t * hop + win] * window for t in range(frames)], axis=1)  # (b, t, w)
    want = np.einsum("fw,btw->bft", wave, segments) / (np.sqrt(n_fft) if normalized else 1)
    np.testing.assert_allclose(got[..., 0], want.real, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[..., 1], want.imag, rtol=1e-5, atol=1e-5)
