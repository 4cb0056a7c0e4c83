"""The schedules of TVM's legacy tutorials, written anew: each builds equal to NumPy, both modes.

Schedule primitives, reduction (before rfactor), tuple inputs, tensor-expression get-started
and the GEMM optimisation steps; the CUDA convolution at small sizes is in
tests/lower/test_threads.py. Symbolic shapes run on concrete arrays.
"""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import lower

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])

# ----------------------------------------------------------------------------- schedule primitives

PRIMITIVES = ["none", "split_factor", "split_nparts", "tile", "fuse", "reorder", "bind"]


@BOTH
@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_schedule_primitives_on_one_stage(primitive, exact):
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] * 2, name="B")
    s = te.create_schedule(B.op)
    i, j = B.op.axis
    if primitive == "split_factor":
        s[B].split(i, factor=32)
    elif primitive == "split_nparts":
        s[B].split(i, nparts=32)
    elif primitive in ("tile", "fuse", "reorder"):
        xo, yo, xi, yi = s[B].tile(i, j, x_factor=10, y_factor=5)
        if primitive == "fuse":
            s[B].fuse(xi, yi)
        elif primitive == "reorder":
            s[B].reorder(xi, yo, xo, yi)
    elif primitive == "bind":
        fused = s[B].fuse(i, j)
        bx, tx = s[B].split(fused, factor=64)
        s[B].bind(bx, te.thread_axis("blockIdx.x"))
        s[B].bind(tx, te.thread_axis("threadIdx.x"))
    a = random((23, 17))
    (b,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(b, a * 2)


@BOTH
@pytest.mark.parametrize("placement", ["root", "compute_at", "compute_inline", "compute_root"])
def test_schedule_primitives_on_two_stages(placement, exact):
    m = te.var("m")
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i] + 1, name="B")
    C = te.compute((m,), lambda i: B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    a = random((11,))
    if placement == "compute_inline":
        s[B].compute_inline()
        assert "B[" not in str(lower(s, [A, B, C]))  # the tutorial passes B: bound, never written
        b, c = run(s, [A, B, C], [a], exact)
        np.testing.assert_array_equal(c, (a + 1) * 2)
        assert np.isnan(b).all()
        return
    if placement != "root":
        s[B].compute_at(s[C], C.op.axis[0])
    if placement == "compute_root":
        s[B].compute_root()
    b, c = run(s, [A, B, C], [a], exact)
    np.testing.assert_array_equal(b, a + 1)
    np.testing.assert_array_equal(c, (a + 1) * 2)


# ----------------------------------------------------------------------------- reduction


@BOTH
@pytest.mark.parametrize("step", ["plain", "split", "bind"])
def test_reduction_row_sum(step, exact):
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    if step != "plain":
        ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
        xo, xi = s[B].split(B.op.axis[0], factor=32)
    if step == "bind":
        s[B].bind(xo, te.thread_axis("blockIdx.x"))
        s[B].bind(xi, te.thread_axis("threadIdx.x"))
    a = random((45, 37))
    (b,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(b, a.sum(axis=1))


@BOTH
def test_reduction_convolution_and_custom_reducer(exact):
    n = te.var("n")
    Input = te.placeholder((n, n), name="Input")
    Filter = te.placeholder((3, 3), name="Filter")
    di, dj = te.reduce_axis((0, 3), name="di"), te.reduce_axis((0, 3), name="dj")
    Output = te.compute((n - 2, n - 2),
                        lambda i, j: te.sum(Input[i + di, j + dj] * Filter[di, dj], axis=[di, dj]), name="Output")
    s = te.create_schedule(Output.op)
    x, f = random((9, 9), seed=1), random((3, 3), seed=2)
    (out,) = run(s, [Input, Filter, Output], [x, f], exact)
    expected = np.array([[(x[i:i + 3, j:j + 3] * f).sum() for j in range(7)] for i in range(7)])
    np.testing.assert_array_equal(out, expected)

    n, m = te.var("n"), te.var("m")
    product = te.comm_reducer(lambda x, y: x * y, lambda t: te.const(1, dtype=t), name="product")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: product(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    a = random((4, 5), seed=3)
    (b,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(b, a.prod(axis=1))


# ----------------------------------------------------------------------------- tuple inputs


@BOTH
def test_tuple_inputs(exact):
    n, m = te.var("n"), te.var("m")
    A0 = te.placeholder((m, n), name="A0")
    A1 = te.placeholder((m, n), name="A1")
    B0, B1 = te.compute((m, n), lambda i, j: (A0[i, j] + 2, A1[i, j] * 3), name="B")
    s = te.create_schedule(B0.op)
    a0, a1 = random((3, 4), seed=1), random((3, 4), seed=2)
    b0, b1 = run(s, [A0, A1, B0, B1], [a0, a1], exact)
    np.testing.assert_array_equal(b0, a0 + 2)
    np.testing.assert_array_equal(b1, a1 * 3)

    def fcombine(x, y):
        return te.select(x[1] >= y[1], x[0], y[0]), te.select(x[1] >= y[1], x[1], y[1])

    def fidentity(t0, t1):
        return te.const(-1, t0), te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="int32")
    k = te.reduce_axis((0, n), "k")
    T0, T1 = te.compute((m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="T")
    s = te.create_schedule(T0.op)
    ind = np.tile(np.arange(6, dtype="int32"), (4, 1))
    v = random((4, 6), "int32", seed=4)
    t0, t1 = run(s, [idx, val, T0, T1], [ind, v], exact)
    np.testing.assert_array_equal(t0, v.argmax(axis=1))
    np.testing.assert_array_equal(t1, v.max(axis=1))

    A0 = te.placeholder((m, n), name="A0")
    B0, B1 = te.compute((m, n), lambda i, j: (A0[i, j] + 2, A0[i, j] * 3), name="B")
    A1 = te.placeholder((m, n), name="A1")
    C = te.compute((m, n), lambda i, j: A1[i, j] + B0[i, j], name="C")
    s = te.create_schedule(C.op)
    s[B0].compute_at(s[C], C.op.axis[0])
    (c,) = run(s, [A0, A1, C], [a0, a1], exact)
    np.testing.assert_array_equal(c, a1 + a0 + 2)


# ----------------------------------------------------------------------------- get started: vector add


@BOTH
@pytest.mark.parametrize("schedule", ["default", "parallel", "vectorized", "gpu"])
def test_vector_add(schedule, exact):
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    if schedule == "parallel":
        s[C].parallel(C.op.axis[0])
    elif schedule == "vectorized":
        outer, inner = s[C].split(C.op.axis[0], factor=4)
        s[C].parallel(outer)
        s[C].vectorize(inner)
    elif schedule == "gpu":
        bx, tx = s[C].split(C.op.axis[0], factor=64)
        s[C].bind(bx, te.thread_axis("blockIdx.x"))
        s[C].bind(tx, te.thread_axis("threadIdx.x"))
    a, b = random((1027,), seed=1), random((1027,), seed=2)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_array_equal(c, a + b)


# ----------------------------------------------------------------------------- GEMM optimisation steps

GEMM_STEPS = ["default", "blocking", "vectorization", "loop_permutation", "array_packing", "write_cache",
              "parallel"]
M = K = N = 64
BN, KFACTOR = 32, 4


def _gemm(step: str):
    k = te.reduce_axis((0, K), "k")
    A = te.placeholder((M, K), name="A")
    B = te.placeholder((K, N), name="B")
    if step in ("array_packing", "write_cache", "parallel"):
        packedB = te.compute((N / BN, K, BN), lambda bigN, kk, littleN: B[kk, bigN * BN + littleN], name="packedB")
        C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * packedB[n // BN, k, te.indexmod(n, BN)], axis=k),
                       name="C")
    else:
        C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * B[k, n], axis=k), name="C")
    s = te.create_schedule(C.op)
    if step == "default":
        return s, A, B, C
    if step in ("write_cache", "parallel"):
        CC = s.cache_write(C, "global")
        mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], BN, BN)
        s[CC].compute_at(s[C], no)
        mc, nc = s[CC].op.axis
        ko, ki = s[CC].split(s[CC].op.reduce_axis[0], factor=KFACTOR)
        s[CC].reorder(ko, mc, ki, nc)
        s[CC].vectorize(nc)
        s[CC].unroll(ki)
        if step == "parallel":
            s[C].parallel(mo)
    else:
        mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], BN, BN)
        ko, ki = s[C].split(s[C].op.reduce_axis[0], factor=KFACTOR)
        if step == "blocking":
            s[C].reorder(mo, no, ko, ki, mi, ni)
        elif step == "vectorization":
            s[C].reorder(mo, no, ko, ki, mi, ni)
            s[C].vectorize(ni)
        else:
            s[C].reorder(mo, no, ko, mi, ki, ni)
            s[C].vectorize(ni)
    if step in ("array_packing", "write_cache", "parallel"):
        bigN, _, littleN = s[packedB].op.axis
        s[packedB].vectorize(littleN)
        s[packedB].parallel(bigN)
    return s, A, B, C


@BOTH
@pytest.mark.parametrize("step", GEMM_STEPS)
def test_gemm_optimisation_steps(step, exact):
    s, A, B, C = _gemm(step)
    a, b = random((M, K), seed=1), random((K, N), seed=2)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_array_equal(c, a @ b)
