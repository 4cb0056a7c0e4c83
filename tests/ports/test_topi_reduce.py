"""TOPI's reductions (sum, max, argmax) and injective operators (transpose, concatenate) with
schedules in the style of its x86 and CUDA ones, written anew: both modes, both targets, equal
to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build

from .topi_ops import argmax_reducer, cuda_reduce

BOTH = pytest.mark.parametrize("exact", [False, True])


def _reduce(kind: str, shape: tuple[int, ...]):
    A = te.placeholder(shape, name="A")
    k = te.reduce_axis((0, shape[-1]), name="k")
    out_shape = shape[:-1]
    if kind == "argmax":
        idx, _ = te.compute(out_shape, lambda *i: argmax_reducer()((k, A[(*i, k)]), axis=k), name="T")
        return A, te.compute(out_shape, lambda *i: idx[i], name="out"), idx
    red = te.sum if kind == "sum" else te.max
    return A, te.compute(out_shape, lambda *i: red(A[(*i, k)], axis=k), name="out"), None


@BOTH
@pytest.mark.parametrize("kind", ["sum", "max", "argmax"])
@pytest.mark.parametrize("shape", [(4, 5, 12), (3, 7)])
def test_reduce_x86(exact, kind, shape):
    """TOPI x86: the output's axes fused and run in parallel, an index reduction at its output."""
    A, out, idx = _reduce(kind, shape)
    s = te.create_schedule(out.op)
    fused = s[out].fuse(*out.op.axis)
    s[out].parallel(fused)
    if idx is not None:
        s[idx].compute_at(s[out], fused)
    a = np.random.default_rng(len(shape)).standard_normal(shape).astype("float32")
    expected = {"sum": a.sum(axis=-1), "max": a.max(axis=-1), "argmax": a.argmax(axis=-1)}[kind]
    got = np.full(expected.shape, -7, out.dtype)
    build(s, [A, out], exact=exact)(a, got)
    np.testing.assert_allclose(got, expected, rtol=1e-5)


@BOTH
@pytest.mark.parametrize("index", [False, True])
@pytest.mark.parametrize(("n", "k"), [(5, 37), (40, 32)])
def test_reduce_cuda(exact, index, n, k):
    s, A, out = cuda_reduce(n, k, index)
    a = np.random.default_rng(n).integers(-50, 50, (n, k)).astype("float32")
    expected = a.argmax(axis=1) if index else a.sum(axis=1)
    got = np.full(n, -7, out.dtype)
    build(s, [A, out], exact=exact)(a, got)
    np.testing.assert_array_equal(got, expected)


def _injective_schedule(T: te.Tensor, style: str) -> te.Schedule:
    s = te.create_schedule(T.op)
    te.schedule.AutoInlineInjective(s)
    if style == "x86":  # TOPI x86 injective: outer axes fused in parallel, the last vectorized
        *outer, last = T.op.axis
        if outer:
            s[T].parallel(s[T].fuse(*outer))
        s[T].vectorize(s[T].split(last, factor=4)[1])
    else:
        bx, tx = s[T].split(s[T].fuse(*T.op.axis), factor=32)
        s[T].bind(bx, te.thread_axis("blockIdx.x"))
        s[T].bind(tx, te.thread_axis("threadIdx.x"))
    return s


@BOTH
@pytest.mark.parametrize("style", ["x86", "cuda"])
def test_transpose_of_a_relu_and_concatenate(exact, style):
    A = te.placeholder((3, 5, 7), name="A")
    B = te.placeholder((3, 2, 7), name="B")
    relu = te.compute(A.shape, lambda *i: te.max(A(*i), te.const(0.0)), name="relu", tag="elemwise")
    T = te.compute((7, 3, 5), lambda c, a, b: relu[a, b, c], name="T_transpose", tag="injective")
    cat = te.compute((3, 7, 7), lambda i, j, k: te.if_then_else(j < 5, A[i, te.min(j, 4), k], B[i, te.max(j - 5, 0), k]),
                     name="T_concat", tag="injective")
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((3, 5, 7)).astype("float32"), rng.standard_normal((3, 2, 7)).astype("float32")
    for out, args, arrays, expected in ((T, [A, T], [a], np.maximum(a, 0).transpose(2, 0, 1)),
                                        (cat, [A, B, cat], [a, b], np.concatenate([a, b], axis=1))):
        s = _injective_schedule(out, style)
        got = np.full(expected.shape, np.nan, "float32")
        build(s, args, exact=exact)(*arrays, got)
        np.testing.assert_array_equal(got, expected)
