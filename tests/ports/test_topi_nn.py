"""TVM's TOPI softmax, dense and batch_matmul tests, written anew against our topi with its
x86 and CUDA schedules: both modes, both targets, equal to NumPy."""

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
    return np.random.default_rng(seed).integers(-4, 5, size=shape).astype("float32")


def _built(style, schedule, out, args, exact):
    with Target(TARGET[style]):
        s = getattr(getattr(topi, style), schedule)(out)
    return build(s, args, exact=exact)


@BOTH
@STYLES
@pytest.mark.parametrize("shape", [(3, 40), (2, 16)])
def test_softmax(exact, style, shape):
    x = te.placeholder(shape, name="x")
    out = topi.nn.softmax(x)
    a = np.random.default_rng(0).standard_normal(shape).astype("float32")
    got = np.full(shape, np.nan, "float32")
    _built(style, "schedule_softmax", out, [x, out], exact)(a, got)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


@BOTH
@STYLES
@pytest.mark.parametrize(("batch", "in_dim", "out_dim"), [(2, 40, 12), (3, 16, 7)])
def test_dense_with_bias(exact, style, batch, in_dim, out_dim):
    data = te.placeholder((batch, in_dim), name="data")
    weight = te.placeholder((out_dim, in_dim), name="weight")
    bias = te.placeholder((out_dim,), name="bias")
    out = topi.nn.dense(data, weight, bias)
    d, w, b = _rand((batch, in_dim), 1), _rand((out_dim, in_dim), 2), _rand((out_dim,), 3)
    got = np.full((batch, out_dim), np.nan, "float32")
    _built(style, "schedule_dense", out, [data, weight, bias, out], exact)(d, w, b, got)
    np.testing.assert_array_equal(got, d @ w.T + b)


@BOTH
@STYLES
@pytest.mark.parametrize(("batch", "m", "n", "k"), [(2, 16, 16, 8), (1, 10, 13, 6)])
def test_batch_matmul(exact, style, batch, m, n, k):
    x = te.placeholder((batch, m, k), name="x")
    y = te.placeholder((batch, n, k), name="y")
    C = topi.nn.batch_matmul(x, y)
    a, b = _rand((batch, m, k), 4), _rand((batch, n, k), 5)
    got = np.full((batch, m, n), np.nan, "float32")
    _built(style, "schedule_batch_matmul", C, [x, y, C], exact)(a, b, got)
    np.testing.assert_array_equal(got, np.einsum("bik,bjk->bij", a, b))
