"""Sparse products (``topi.nn.sparse_dense`` in CSR and BSR form, on either side), transpose
and addition, ``topi.sparse``'s CSR products over ``tvm.contrib.sparse`` placeholders, and the
1 x 1 sparse convolution: against the dense products NumPy computes of the same matrices (the
CSR and BSR parts built here from dense ones)."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import tebound.tvm.contrib.sparse as tvmsp
import topi
from lower import build
from lower.target import Target

RNG = np.random.default_rng(53)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _csr(dense):
    rows, cols = np.nonzero(dense)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=dense.shape[0]))]).astype("int32")
    return dense[rows, cols], cols.astype("int32"), indptr


def _bsr(dense, br, bc):
    blocks = dense.reshape(dense.shape[0] // br, br, dense.shape[1] // bc, bc).transpose(0, 2, 1, 3)
    rows, cols = np.nonzero(np.abs(blocks).sum(axis=(2, 3)))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=blocks.shape[0]))]).astype("int32")
    return blocks[rows, cols], cols.astype("int32"), indptr


def _sparse(shape, density=0.35):
    return (RNG.standard_normal(shape) * (RNG.random(shape) < density)).astype("float32")


def _placeholders(parts):
    return [te.placeholder(p.shape, str(p.dtype), f"s{k}") for k, p in enumerate(parts)]


@pytest.mark.parametrize("style", ["generic", "x86", "cuda"])
@pytest.mark.parametrize("form", ["csr", "bsr"])
@pytest.mark.parametrize("lhs", [False, True])
def test_sparse_dense_equals_the_dense_product(style, form, lhs):
    w = _sparse((6, 12))
    if form == "bsr":
        w = np.kron(RNG.integers(0, 2, (3, 4)), np.ones((2, 3))).astype("float32") * w.astype("bool") + \
            np.kron(RNG.integers(0, 2, (3, 4)), np.ones((2, 3))).astype("float32")
    parts = _csr(w) if form == "csr" else _bsr(w, 2, 3)
    x = RNG.standard_normal((4, 12)).astype("float32")
    X, P = te.placeholder(x.shape, name="X"), _placeholders(parts)
    with Target("cuda" if style == "cuda" else "llvm"):
        Y = topi.nn.relu((topi.cuda if style == "cuda" else topi.nn).sparse_dense(X, *P, sparse_lhs=lhs))
        s = getattr(topi, style).schedule_sparse_dense([Y])
    got = np.full([int(d) for d in Y.shape], np.nan, "float32")
    build(s, [X, *P, Y])(x, *parts, got)
    want = w @ x.T if lhs else x @ w.T
    np.testing.assert_allclose(got, np.maximum(want, 0), rtol=1e-5, atol=1e-5)


def test_transpose_and_addition():
    x = _sparse((9, 9))
    parts = _csr(x)
    P = _placeholders(parts)
    T = topi.nn.sparse_transpose(*P)
    out = [np.zeros_like(parts[0]), np.zeros_like(parts[1]), np.zeros_like(parts[2])]
    build(te.create_schedule([t.op for t in T]), [*P, *T])(*parts, *out)
    for got, want in zip(out, _csr(np.ascontiguousarray(x.T))):  # rows of the transpose in column order
        np.testing.assert_array_equal(got, want)
    d = RNG.standard_normal((9, 9)).astype("float32")
    D = te.placeholder(d.shape, name="D")
    Z = topi.nn.sparse_add(D, *P)
    z = np.zeros_like(d)
    build(te.create_schedule(Z.op), [D, *P, Z])(d, *parts, z)
    np.testing.assert_array_equal(z, d + x)


def test_csr_products_over_contrib_placeholders_with_symbolic_sizes():
    nr, nc, n = te.var("nr"), te.var("nc"), te.var("n")
    A = tvmsp.placeholder((nr, nc), nonzeros=n, dtype="float32", name="A")
    assert (A.data.dtype, A.indices.dtype, A.indptr.dtype) == ("float32", "int32", "int32")
    a_np = _sparse((5, 7))
    a = tvmsp.array(a_np)
    np.testing.assert_array_equal(a.numpy(), a_np)
    b, c = RNG.standard_normal((7, 3)).astype("float32"), RNG.standard_normal(5).astype("float32")
    B, B1, C = te.placeholder((7, 3), name="B"), te.placeholder((7, 1), name="B1"), te.placeholder((nr,), name="C")
    W = te.placeholder((3, 7), name="W")
    cases = [(topi.sparse.csrmm(A, B, C), [B, C], [b, c], a_np @ b + c[:, None]),
             (topi.sparse.csrmv(A, B1), [B1], [b[:, :1]], a_np @ b[:, :1]),
             (topi.sparse.dense(A, W), [W], [np.ascontiguousarray(b.T)], a_np @ b)]
    for out, inputs, arrays, want in cases:
        got = np.full(want.shape, np.nan, "float32")
        build(te.create_schedule(out.op), [nr, A.data, A.indices, A.indptr, *inputs, out])(
            5, a.data, a.indices, a.indptr, *arrays, got)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    D = te.placeholder((4, 7), name="D")  # the sparse operand on the right: (batch, in) x (out, in)
    out = topi.sparse.dense(D, A)
    d = RNG.standard_normal((4, 7)).astype("float32")
    got = np.zeros((4, 5), "float32")
    build(te.create_schedule(out.op), [nr, D, A.data, A.indices, A.indptr, out])(5, d, a.data, a.indices, a.indptr,
                                                                                 got)
    np.testing.assert_allclose(got, d @ a_np.T, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
@pytest.mark.parametrize("bc", [2, 1])
def test_sparse_1x1_convolution(layout, bc):
    w = np.kron(RNG.integers(0, 2, (4, 6 // bc)), np.ones((2, bc))).astype("float32") * \
        RNG.standard_normal((8, 6)).astype("float32")
    data, indices, indptr = _bsr(w, 2, bc)
    if bc == 1:
        data = data.reshape(data.shape[0], 2)  # blocks of one column, as scipy gives them
    x = RNG.standard_normal((2, 3, 4, 6) if layout == "NHWC" else (2, 6, 3, 4)).astype("float32")
    X, P = te.placeholder(x.shape, name="X"), _placeholders([data, indices, indptr])
    Y = topi.nn.sparse_conv2d(X, *P, layout)
    got = np.zeros([int(d) for d in Y.shape], "float32")
    build(te.create_schedule(Y.op), [X, *P, Y])(x, data, indices, indptr, got)
    want = np.einsum("nhwc,fc->nhwf", x, w) if layout == "NHWC" else np.einsum("nchw,fc->nfhw", x, w)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_bad_operands_are_refused():
    with pytest.raises(ValueError, match="CSR \\(1-d data\\) or BSR"):
        topi.nn.sparse_dense(te.placeholder((2, 3)), te.placeholder((2, 2)), te.placeholder((2,), "int32"),
                             te.placeholder((3,), "int32"))
    with pytest.raises(TypeError, match="one operand is a tvm.contrib.sparse placeholder"):
        topi.sparse.dense(te.placeholder((2, 3)), te.placeholder((2, 3)))
    with pytest.raises(ValueError, match="only the 'csr'"):
        tvmsp.placeholder((2, 2), stype="bsr")
