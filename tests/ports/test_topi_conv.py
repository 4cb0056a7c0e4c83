"""TOPI's conv2d (NCHW, direct), depthwise conv2d and pooling, with schedules in the style of its
x86 and CUDA ones, written anew: padding inlined or cached in shared memory, tiles bound to
blocks and threads; both modes, both targets, equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build

from .topi_ops import conv2d_nchw, depthwise_conv2d_nchw, pool2d

BOTH = pytest.mark.parametrize("exact", [False, True])
STYLES = pytest.mark.parametrize("style", ["x86", "cuda"])


def _rand(shape, seed):
    return np.random.default_rng(seed).integers(-3, 4, size=shape).astype("float32")


def _windows(a: np.ndarray, k: int, stride: int, padding: int, fill: float = 0.0) -> np.ndarray:
    """(n, c, oh, ow, k, k) windows of the padded NCHW input."""
    p = np.pad(a, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=fill)
    w = np.lib.stride_tricks.sliding_window_view(p, (k, k), axis=(2, 3))
    return w[:, :, ::stride, ::stride]


def _bind_flat(s: te.Schedule, T: te.Tensor, threads: int = 16) -> None:
    """TOPI's CUDA injective pattern: every axis fused, split over blocks and threads."""
    bx, tx = s[T].split(s[T].fuse(*s[T].op.axis), factor=threads)
    s[T].bind(bx, te.thread_axis("blockIdx.x"))
    s[T].bind(tx, te.thread_axis("threadIdx.x"))


@BOTH
@STYLES
@pytest.mark.parametrize(("kind", "kernel", "stride", "padding"), [("max", 3, 2, 1), ("avg", 2, 2, 0), ("avg", 3, 1, 1)])
def test_pool2d(exact, style, kind, kernel, stride, padding):
    data = te.placeholder((1, 3, 7, 7), name="data")
    out = pool2d(data, kernel, stride, padding, kind)
    s = te.create_schedule(out.op)
    total = out.op.input_tensors[0] if kind == "avg" else None  # the window sums an average divides
    s[(total if total is not None else out).op.input_tensors[0]].compute_inline()  # the padding
    if style == "x86":  # TOPI x86: batch and channel fused in parallel
        s[out].parallel(s[out].fuse(out.op.axis[0], out.op.axis[1]))
    else:
        _bind_flat(s, out)
    if total is not None:
        s[total].compute_at(s[out], s[out].leaf_iter_vars[-1])
    a = _rand((1, 3, 7, 7), 1)
    windows = _windows(a, kernel, stride, padding, float("-inf") if kind == "max" else 0.0)
    expected = windows.max(axis=(4, 5)) if kind == "max" else windows.sum(axis=(4, 5)) / np.float32(kernel * kernel)
    got = np.full(expected.shape, np.nan, "float32")
    build(s, [data, out], exact=exact)(a, got)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def _conv2d_schedule(conv: te.Tensor, style: str) -> te.Schedule:
    s = te.create_schedule(conv.op)
    padded, kernel = conv.op.input_tensors
    if style == "x86":  # output channels by 4, columns by 4 vectorized, a global accumulator per tile
        CC = s.cache_write(conv, "global")
        n, f, y, x = conv.op.axis
        fo, fi = s[conv].split(f, factor=4)
        xo, xi = s[conv].split(x, factor=4)
        s[conv].reorder(n, fo, y, xo, fi, xi)
        s[conv].parallel(s[conv].fuse(n, fo))
        s[conv].vectorize(xi)
        s[CC].compute_at(s[conv], xo)
        _, cf, _, cx = s[CC].op.axis
        rc, ry, rx = s[CC].op.reduce_axis
        s[CC].reorder(rc, ry, rx, cf, cx)
        s[CC].vectorize(cx)
        s[padded].compute_at(s[conv], y)
        return s
    # CUDA direct: padded input and weights through shared memory, a local accumulator per thread
    s[padded].compute_inline()
    PS = s.cache_read(padded, "shared", [conv])
    WS = s.cache_read(kernel, "shared", [conv])
    CL = s.cache_write(conv, "local")
    n, f, y, x = conv.op.axis
    bf, tf = s[conv].split(f, factor=4)
    by, ty = s[conv].split(y, factor=4)
    s[conv].reorder(n, bf, by, tf, ty, x)
    s[conv].bind(s[conv].fuse(n, bf), te.thread_axis("blockIdx.y"))
    s[conv].bind(by, te.thread_axis("blockIdx.x"))
    tfx, tyx = te.thread_axis("threadIdx.y"), te.thread_axis("threadIdx.x")
    s[conv].bind(tf, tfx)
    s[conv].bind(ty, tyx)
    s[CL].compute_at(s[conv], ty)
    rc, ry, rx = s[CL].op.reduce_axis
    rco, rci = s[CL].split(rc, factor=2)
    s[CL].reorder(rco, rci, ry, rx, *s[CL].op.axis)
    for cached in (PS, WS):
        s[cached].compute_at(s[CL], rco)
        ax = s[cached].op.axis
        s[cached].bind(s[cached].split(ax[1], nparts=4)[0], tfx)
        s[cached].bind(s[cached].split(ax[2], nparts=4)[0], tyx)
    return s


@BOTH
@STYLES
@pytest.mark.parametrize(("c", "k", "size", "stride", "padding"), [(4, 8, 6, 1, 1), (3, 6, 7, 2, 1)])
def test_conv2d_nchw(exact, style, c, k, size, stride, padding):
    data = te.placeholder((1, c, size, size), name="data")
    kernel = te.placeholder((k, c, 3, 3), name="kernel")
    conv = conv2d_nchw(data, kernel, stride, padding)
    s = _conv2d_schedule(conv, style)
    a, w = _rand((1, c, size, size), 2), _rand((k, c, 3, 3), 3)
    expected = np.einsum("nchwij,kcij->nkhw", _windows(a, 3, stride, padding), w)
    got = np.full(expected.shape, np.nan, "float32")
    build(s, [data, kernel, conv], exact=exact)(a, w, got)
    np.testing.assert_array_equal(got, expected)


def _depthwise_schedule(out: te.Tensor, style: str) -> te.Schedule:
    s = te.create_schedule(out.op)
    padded, kernel = out.op.input_tensors
    if style == "x86":
        b, ch, y, x = out.op.axis
        xo, xi = s[out].split(x, factor=4)
        s[out].reorder(b, ch, y, xo, xi)
        s[out].parallel(s[out].fuse(b, ch))
        s[out].vectorize(xi)
        s[padded].compute_at(s[out], y)
        return s
    # CUDA: the padding inlined into a shared copy of each channel's input, threads over rows and columns
    s[padded].compute_inline()
    IS = s.cache_read(padded, "shared", [out])
    FS = s.cache_read(kernel, "shared", [out])
    b, ch, y, x = out.op.axis
    s[out].bind(s[out].fuse(b, ch), te.thread_axis("blockIdx.x"))
    ty, tx = te.thread_axis("threadIdx.y"), te.thread_axis("threadIdx.x")
    s[out].bind(y, ty)
    s[out].bind(x, tx)
    for cached in (IS, FS):
        s[cached].compute_at(s[out], s[out].leaf_iter_vars[0])
    _, _, iy, ix = IS.op.axis  # the fetch split over the same threads as the output
    s[IS].bind(s[IS].split(iy, nparts=int(out.shape[2]))[0], ty)
    s[IS].bind(s[IS].split(ix, nparts=int(out.shape[3]))[0], tx)
    return s


@BOTH
@STYLES
@pytest.mark.parametrize(("mult", "size", "stride", "padding"), [(1, 6, 1, 1), (2, 7, 2, 1)])
def test_depthwise_conv2d_nchw(exact, style, mult, size, stride, padding):
    data = te.placeholder((1, 3, size, size), name="data")
    kernel = te.placeholder((3, mult, 3, 3), name="kernel")
    out = depthwise_conv2d_nchw(data, kernel, stride, padding)
    s = _depthwise_schedule(out, style)
    a, w = _rand((1, 3, size, size), 4), _rand((3, mult, 3, 3), 5)
    windows = _windows(a, 3, stride, padding)  # n, c, oh, ow, i, j
    expected = np.einsum("nchwij,cmij->ncmhw", windows, w).reshape(1, 3 * mult, *windows.shape[2:4])
    got = np.full(expected.shape, np.nan, "float32")
    build(s, [data, kernel, out], exact=exact)(a, w, got)
    np.testing.assert_array_equal(got, expected)
