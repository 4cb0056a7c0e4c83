"""TOPI's softmax, dense and batch_matmul with schedules in the style of its x86 and CUDA ones,
written anew: both modes, both targets, equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build

from .topi_ops import batch_matmul, dense, softmax

BOTH = pytest.mark.parametrize("exact", [False, True])
STYLES = pytest.mark.parametrize("style", ["x86", "cuda"])


def _rand(shape, seed):
    return np.random.default_rng(seed).integers(-4, 5, size=shape).astype("float32")


def _softmax_schedule(out: te.Tensor, style: str) -> te.Schedule:
    exp, expsum = out.op.input_tensors
    max_elem = exp.op.input_tensors[1]
    s = te.create_schedule(out.op)
    if style == "x86":  # rows in parallel, every stage of a row at the row
        row, col = out.op.axis
        s[out].parallel(row)
        for t in (max_elem, exp, expsum):
            s[t].compute_at(s[out], row)
        s[out].vectorize(s[out].split(col, factor=4)[1])
        return s
    bx, tx = te.thread_axis("blockIdx.x"), te.thread_axis((0, 16), "threadIdx.x")
    for red in (max_elem, expsum):  # a cross-thread reduction per row, factored over 16 threads
        _, ki = s[red].split(s[red].op.reduce_axis[0], factor=16)
        rf = s.rfactor(red, ki)
        s[red].bind(s[red].op.axis[0], bx)
        s[red].bind(s[red].op.reduce_axis[0], tx)
        s[rf].compute_at(s[red], s[red].op.reduce_axis[0])
        s[red].set_store_predicate(tx.var.equal(0))
    s[exp].bind(exp.op.axis[0], bx)
    s[exp].bind(s[exp].split(exp.op.axis[1], nparts=16)[0], tx)
    s[out].bind(out.op.axis[0], bx)
    s[out].bind(s[out].split(out.op.axis[1], nparts=16)[0], tx)
    return s


@BOTH
@STYLES
@pytest.mark.parametrize("shape", [(3, 40), (2, 16)])
def test_softmax(exact, style, shape):
    x = te.placeholder(shape, name="x")
    out = softmax(x)
    s = _softmax_schedule(out, style)
    a = np.random.default_rng(0).standard_normal(shape).astype("float32")
    got = np.full(shape, np.nan, "float32")
    build(s, [x, out], exact=exact)(a, got)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def _dense_schedule(out: te.Tensor, style: str) -> te.Schedule:
    mat = out.op.input_tensors[0]
    s = te.create_schedule(out.op)
    if style == "x86":  # tile the output, mat computed per tile in registers of 8 columns
        y, x = out.op.axis
        yo, xo, yi, xi = s[out].tile(y, x, 2, 8)
        s[out].parallel(yo)
        s[out].vectorize(xi)
        s[mat].compute_at(s[out], xo)
        my, mx = mat.op.axis
        ko, ki = s[mat].split(mat.op.reduce_axis[0], factor=4)
        s[mat].reorder(ko, my, ki, mx)
        s[mat].vectorize(mx)
        return s
    # small-batch CUDA: the reduction factored over 32 threads, one block per output element
    tx = te.thread_axis((0, 32), "threadIdx.x")
    _, kf = s[mat].split(mat.op.reduce_axis[0], factor=32)
    rf = s.rfactor(mat, kf)
    s[mat].compute_at(s[out], out.op.axis[1])
    s[out].bind(out.op.axis[0], te.thread_axis("blockIdx.y"))
    s[out].bind(out.op.axis[1], te.thread_axis("blockIdx.x"))
    s[mat].bind(s[mat].op.reduce_axis[0], tx)
    s[rf].compute_at(s[mat], s[mat].op.reduce_axis[0])
    s[mat].set_store_predicate(tx.var.equal(0))
    s[out].set_store_predicate(tx.var.equal(0))
    return s


@BOTH
@STYLES
@pytest.mark.parametrize(("batch", "in_dim", "out_dim"), [(2, 40, 12), (3, 16, 7)])
def test_dense_with_bias(exact, style, batch, in_dim, out_dim):
    data = te.placeholder((batch, in_dim), name="data")
    weight = te.placeholder((out_dim, in_dim), name="weight")
    bias = te.placeholder((out_dim,), name="bias")
    out = dense(data, weight, bias)
    s = _dense_schedule(out, style)
    d, w, b = _rand((batch, in_dim), 1), _rand((out_dim, in_dim), 2), _rand((out_dim,), 3)
    got = np.full((batch, out_dim), np.nan, "float32")
    build(s, [data, weight, bias, out], exact=exact)(d, w, b, got)
    np.testing.assert_array_equal(got, d @ w.T + b)


def _batch_matmul_schedule(C: te.Tensor, style: str) -> te.Schedule:
    s = te.create_schedule(C.op)
    A, B = C.op.input_tensors
    if style == "x86":
        b, y, x = C.op.axis
        yo, yi = s[C].split(y, factor=4)
        xo, xi = s[C].split(x, factor=4)
        ko, ki = s[C].split(C.op.reduce_axis[0], factor=2)
        s[C].reorder(b, yo, xo, ko, yi, ki, xi)
        s[C].parallel(s[C].fuse(b, yo))
        s[C].vectorize(xi)
        return s
    # CUDA: 8 x 8 tiles per block, 4 x 4 threads, shared and local caches of both operands
    AS, BS = s.cache_read(A, "shared", [C]), s.cache_read(B, "shared", [C])
    AL, BL = s.cache_read(AS, "local", [C]), s.cache_read(BS, "local", [C])
    CC = s.cache_write(C, "local")
    ty, tx = te.thread_axis((0, 4), "threadIdx.y"), te.thread_axis((0, 4), "threadIdx.x")
    b, y, x = C.op.axis
    by, yi = s[C].split(y, factor=8)
    bx, xi = s[C].split(x, factor=8)
    ty_o, yi = s[C].split(yi, nparts=4)
    tx_o, xi = s[C].split(xi, nparts=4)
    s[C].reorder(b, by, bx, ty_o, tx_o, yi, xi)
    s[C].bind(b, te.thread_axis("blockIdx.z"))
    s[C].bind(by, te.thread_axis("blockIdx.y"))
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(ty_o, ty)
    s[C].bind(tx_o, tx)
    s[CC].compute_at(s[C], tx_o)
    ko, ki = s[CC].split(s[CC].op.reduce_axis[0], factor=4)
    _, cy, cx = s[CC].op.axis
    s[CC].reorder(ko, ki, cy, cx)
    for shared, local in ((AS, AL), (BS, BL)):
        s[shared].compute_at(s[CC], ko)
        s[local].compute_at(s[CC], ki)
        _, sy, sk = s[shared].op.axis
        s[shared].bind(s[shared].split(sy, nparts=4)[0], ty)
        s[shared].bind(s[shared].split(sk, nparts=4)[0], tx)
    return s


@BOTH
@STYLES
@pytest.mark.parametrize(("batch", "m", "n", "k"), [(2, 16, 16, 8), (1, 10, 13, 6)])
def test_batch_matmul(exact, style, batch, m, n, k):
    x = te.placeholder((batch, m, k), name="x")
    y = te.placeholder((batch, n, k), name="y")
    C = batch_matmul(x, y)
    s = _batch_matmul_schedule(C, style)
    a, b = _rand((batch, m, k), 4), _rand((batch, n, k), 5)
    got = np.full((batch, m, n), np.nan, "float32")
    build(s, [x, y, C], exact=exact)(a, b, got)
    np.testing.assert_array_equal(got, np.einsum("bik,bjk->bij", a, b))
