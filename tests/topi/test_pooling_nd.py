"""Pooling of every rank (1-d, 2-d, 3-d; plain and adaptive) against NumPy written out by
hand, the pools' gradient as the adjoint of the average pool and against the max pool's
definition, and layouts: blocked channels accepted, blocked spatial axes refused."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from schedule.base.errors import ScheduleError
from topi import testing as ref

RNG = np.random.default_rng(5)


def _run(out, inputs, arrays):
    got = np.full([int(d) for d in out.shape], np.nan, out.dtype)
    build(te.create_schedule(out.op), [*inputs, out])(*arrays, got)
    return got


def test_pool1d_by_hand():
    a = RNG.standard_normal((2, 3, 10)).astype("float32")
    A = te.placeholder(a.shape, name="A")
    # kernel 3, stride 2, padding (1, 2): windows start at -1, 1, ..., 9 (the last runs into the padding)
    got = _run(topi.nn.pool1d(A, 3, 2, 1, (1, 2), "max"), [A], [a])
    want = np.stack([a[..., max(s, 0):s + 3].max(axis=-1) for s in range(-1, 10, 2)], axis=-1)
    np.testing.assert_allclose(got, want)
    got = _run(topi.nn.pool1d(A, 3, 2, 1, (1, 2), "avg", count_include_pad=False), [A], [a])
    want = np.stack([a[..., max(s, 0):s + 3].mean(axis=-1) for s in range(-1, 10, 2)], axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    nwc = _run(topi.nn.pool1d(A_t := te.placeholder((2, 10, 3), name="At"), 3, 2, 1, (1, 2), "avg",
                              layout="NWC", count_include_pad=False), [A_t], [a.transpose(0, 2, 1).copy()])
    np.testing.assert_allclose(nwc.transpose(0, 2, 1), want, rtol=1e-5)


@pytest.mark.parametrize("layout", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("kind, ceil, count", [("max", False, True), ("avg", True, True), ("avg", False, False)])
def test_pool3d_against_windows_written_out(layout, kind, ceil, count):
    a = RNG.standard_normal((1, 2, 5, 6, 7)).astype("float32")
    data = a if layout == "NCDHW" else a.transpose(0, 2, 3, 4, 1).copy()
    A = te.placeholder(data.shape, name="A")
    kernel, stride, dilation, pad = (2, 3, 2), (2, 2, 3), (2, 1, 1), (1, 0, 1, 0, 1, 1)
    out = topi.nn.pool3d(A, kernel, stride, dilation, pad, kind, ceil, layout, count)
    got = _run(out, [A], [data])
    got = got if layout == "NCDHW" else got.transpose(0, 4, 1, 2, 3)
    size = a.shape[2:]
    expect = np.zeros(got.shape)
    for pos in itertools.product(*(range(n) for n in got.shape[2:])):
        taps = [[p * stride[k] - pad[k] + t * dilation[k] for t in range(kernel[k])] for k, p in enumerate(pos)]
        inside = [[q for q in taps[k] if 0 <= q < size[k]] for k in range(3)]
        vals = a[:, :, inside[0]][:, :, :, inside[1]][:, :, :, :, inside[2]].reshape(1, 2, -1)
        if kind == "max":
            expect[(..., *pos)] = vals.max(axis=-1)
        else:
            n = np.prod([len([q for q in taps[k] if q < size[k] + pad[3 + k]]) for k in range(3)]) if count \
                else vals.shape[-1]
            expect[(..., *pos)] = vals.sum(axis=-1) / max(n, 1)  # a window past the padding averages to 0
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-6)
    reference = ref.poolnd_python(data, kernel, stride, dilation, pad[:3], pad[3:], kind, count and kind == "avg",
                                  ceil, layout)
    np.testing.assert_allclose(reference if layout == "NCDHW" else reference.transpose(0, 4, 1, 2, 3), expect,
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_adaptive_pools_of_rank_one_and_three(kind):
    a = RNG.standard_normal((1, 2, 7, 5, 9)).astype("float32")
    A = te.placeholder(a.shape, name="A")
    got = _run(topi.nn.adaptive_pool3d(A, (3, 2, 4), kind), [A], [a])
    reduce = np.max if kind == "max" else np.mean
    for z, y, x in itertools.product(range(3), range(2), range(4)):
        cut = a[:, :, z * 7 // 3:-(-(z + 1) * 7 // 3), y * 5 // 2:-(-(y + 1) * 5 // 2), x * 9 // 4:-(-(x + 1) * 9 // 4)]
        # atol: a float32 mean near 0 loses its relative precision to cancellation
        np.testing.assert_allclose(got[:, :, z, y, x], reduce(cut, axis=(2, 3, 4)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ref.adaptive_pool(a, (3, 2, 4), kind, "NCDHW"), got, rtol=1e-5, atol=1e-6)
    b = a[:, :, 0, 0]
    B = te.placeholder(b.shape, name="B")
    got1 = _run(topi.nn.adaptive_pool1d(B, 4, kind), [B], [b])
    np.testing.assert_allclose(got1, np.stack([reduce(b[..., x * 9 // 4:-(-(x + 1) * 9 // 4)], axis=-1)
                                               for x in range(4)], axis=-1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kernel, stride, padding, ceil", [(3, 2, (1, 1, 1, 1), False), (2, 2, (0, 0, 0, 0), False),
                                                           (3, 3, (2, 1, 0, 3), False), (3, 2, (1, 0, 1, 2), True)])
@pytest.mark.parametrize("count", [True, False])
def test_average_pool_gradient_is_the_adjoint(kernel, stride, padding, ceil, count):
    """Average pooling is linear: <pool(x), g> = <x, pool_grad(g)> for every x and g."""
    x = RNG.standard_normal((1, 2, 9, 8)).astype("float32")
    X = te.placeholder(x.shape, name="X")
    pooled = topi.nn.pool2d(X, kernel, stride, 1, padding, "avg", ceil, "NCHW", count)
    g = RNG.standard_normal([int(d) for d in pooled.shape]).astype("float32")
    G = te.placeholder(g.shape, name="G")
    grad = _run(topi.nn.pool_grad(G, X, kernel, stride, padding, "avg", ceil, count), [G, X], [g, x])
    forward = _run(pooled, [X], [x])
    assert abs(np.sum(forward * g) - np.sum(x * grad)) < 1e-4 * max(1.0, abs(np.sum(forward * g)))
    np.testing.assert_allclose(grad, ref.pool_grad_nchw(x, g, (kernel,) * 2, (stride,) * 2, padding, "avg", ceil,
                                                        count), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kernel, stride, padding, ceil", [(3, 2, (1, 1, 1, 1), False), (3, 3, (2, 1, 2, 1), True),
                                                           (2, 1, (0, 0, 0, 0), False)])
def test_max_pool_gradient_goes_to_the_first_largest(kernel, stride, padding, ceil):
    # few distinct values, so windows hold ties: the first largest (row-major) takes the gradient
    x = RNG.integers(0, 3, (1, 2, 8, 7)).astype("float32")
    X = te.placeholder(x.shape, name="X")
    pooled = topi.nn.pool2d(X, kernel, stride, 1, padding, "max", ceil)
    g = RNG.standard_normal([int(d) for d in pooled.shape]).astype("float32")
    G = te.placeholder(g.shape, name="G")
    got = _run(topi.nn.relu(topi.nn.pool_grad(G, X, kernel, stride, padding, "max", ceil)), [G, X], [g, x])
    expect = np.zeros(x.shape)
    top, left = padding[:2]
    for n, c, oy, ox in itertools.product(*(range(d) for d in g.shape)):
        best = None
        for ry, rx in itertools.product(range(kernel), range(kernel)):
            y, xx = oy * stride - top + ry, ox * stride - left + rx
            if 0 <= y < 8 and 0 <= xx < 7 and (best is None or x[n, c, y, xx] > x[(n, c, *best)]):
                best = (y, xx)
        expect[(n, c, *best)] += g[n, c, oy, ox]
    np.testing.assert_allclose(got, np.maximum(expect, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ref.pool_grad_nchw(x, g, (kernel,) * 2, (stride,) * 2, padding, "max", ceil), expect,
                               rtol=1e-5, atol=1e-6)


def test_layouts_blocked_channels_and_refusals():
    a = RNG.standard_normal((1, 2, 6, 6, 4)).astype("float32")
    A = te.placeholder(a.shape, name="A")
    got = _run(topi.nn.pool2d(A, 2, 2, 1, (0, 0, 0, 0), "max", layout="NCHW4c"), [A], [a])
    np.testing.assert_allclose(got, a.reshape(1, 2, 3, 2, 3, 2, 4).max(axis=(3, 5)))
    with pytest.raises(ScheduleError, match="Unsupported layout NCHW4h4w"):
        topi.nn.pool2d(te.placeholder((1, 16, 32, 32)), 2, 2, 1, (0, 0, 0, 0), "avg", layout="NCHW4h4w")
    with pytest.raises(ScheduleError, match="Unsupported layout NCW4w"):
        topi.nn.pool1d(te.placeholder((1, 16, 32)), 2, 2, 1, (0, 0), "avg", layout="NCW4w")
    with pytest.raises(ValueError, match="must name each of the 5 axes"):
        topi.nn.pool3d(te.placeholder((1, 16, 8, 8, 8)), 2, 2, 1, (0,) * 6, "avg", layout="NCDHWX")
    with pytest.raises(ValueError, match=r"\(front, top, left, back, bottom, right\)"):
        topi.nn.pool3d(te.placeholder((1, 16, 8, 8, 8)), 2, 2, 1, (0,) * 4, "avg")
    X, G = te.placeholder((1, 2, 8, 8), name="X"), te.placeholder((1, 2, 3, 3), name="G")
    with pytest.raises(ValueError, match="the pool's output is"):
        topi.nn.pool_grad(G, X, 2, 2, (0, 0, 0, 0), "max")
    with pytest.raises(ValueError, match="pool_type"):
        topi.nn.pool_grad(G, X, 3, 3, (0, 0, 1, 1), "min")
