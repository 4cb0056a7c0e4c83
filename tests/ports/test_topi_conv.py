"""TVM's TOPI conv2d (NCHW, direct), depthwise conv2d and pooling tests, written anew against
our topi with its x86 and CUDA schedules (padding inlined or cached in shared memory, tiles
bound to blocks and threads): both modes, both targets, equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target

BOTH = pytest.mark.parametrize("exact", [False, True])
STYLES = pytest.mark.parametrize("style", ["x86", "cuda"])
TARGET = {"x86": "llvm", "cuda": "cuda"}
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _rand(shape, seed):
    return np.random.default_rng(seed).integers(-3, 4, size=shape).astype("float32")


def _windows(a: np.ndarray, k: int, stride: int, padding: int, fill: float = 0.0) -> np.ndarray:
    """(n, c, oh, ow, k, k) windows of the padded NCHW input."""
    p = np.pad(a, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=fill)
    w = np.lib.stride_tricks.sliding_window_view(p, (k, k), axis=(2, 3))
    return w[:, :, ::stride, ::stride]


def _built(style, schedule, out, args, exact):
    with Target(TARGET[style]):
        s = getattr(getattr(topi, style), schedule)(out)
    return build(s, args, exact=exact)


@BOTH
@STYLES
@pytest.mark.parametrize(("kind", "kernel", "stride", "padding"), [("max", 3, 2, 1), ("avg", 2, 2, 0), ("avg", 3, 1, 1)])
def test_pool2d(exact, style, kind, kernel, stride, padding):
    data = te.placeholder((1, 3, 7, 7), name="data")
    out = topi.nn.pool2d(data, kernel, stride, 1, (padding,) * 4, kind)
    a = _rand((1, 3, 7, 7), 1)
    windows = _windows(a, kernel, stride, padding, float("-inf") if kind == "max" else 0.0)
    expected = windows.max(axis=(4, 5)) if kind == "max" else windows.sum(axis=(4, 5)) / np.float32(kernel * kernel)
    got = np.full(expected.shape, np.nan, "float32")
    _built(style, "schedule_pool", out, [data, out], exact)(a, got)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@BOTH
@STYLES
@pytest.mark.parametrize(("c", "k", "size", "stride", "padding"), [(4, 8, 6, 1, 1), (3, 6, 7, 2, 1)])
def test_conv2d_nchw(exact, style, c, k, size, stride, padding):
    data = te.placeholder((1, c, size, size), name="data")
    kernel = te.placeholder((k, c, 3, 3), name="kernel")
    conv = topi.nn.conv2d_nchw(data, kernel, stride, padding, 1)
    a, w = _rand((1, c, size, size), 2), _rand((k, c, 3, 3), 3)
    expected = np.einsum("nchwij,kcij->nkhw", _windows(a, 3, stride, padding), w)
    got = np.full(expected.shape, np.nan, "float32")
    _built(style, "schedule_conv2d_nchw", conv, [data, kernel, conv], exact)(a, w, got)
    np.testing.assert_array_equal(got, expected)


@BOTH
@STYLES
@pytest.mark.parametrize(("mult", "size", "stride", "padding"), [(1, 6, 1, 1), (2, 7, 2, 1)])
def test_depthwise_conv2d_nchw(exact, style, mult, size, stride, padding):
    data = te.placeholder((1, 3, size, size), name="data")
    kernel = te.placeholder((3, mult, 3, 3), name="kernel")
    out = topi.nn.depthwise_conv2d_nchw(data, kernel, stride, padding, 1)
    a, w = _rand((1, 3, size, size), 4), _rand((3, mult, 3, 3), 5)
    windows = _windows(a, 3, stride, padding)  # n, c, oh, ow, i, j
    expected = np.einsum("nchwij,cmij->ncmhw", windows, w).reshape(1, 3 * mult, *windows.shape[2:4])
    got = np.full(expected.shape, np.nan, "float32")
    _built(style, "schedule_depthwise_conv2d_nchw", out, [data, kernel, out], exact)(a, w, got)
    np.testing.assert_array_equal(got, expected)
