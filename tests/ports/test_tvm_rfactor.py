"""TVM's rfactor: the reduction tutorial's factored reduction and te's test_rfactor, written anew;
each builds equal to NumPy in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import lower

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])


def _row_sum():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return A, B


@BOTH
def test_tutorial_reduction_factored(exact):
    A, B = _row_sum()
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    assert BF.op.name == "B.rf" and [iv.name for iv in BF.op.axis] == ["k.inner", "i"]
    text = str(lower(s, [A, B], exact=exact))
    # TVM: the partial sums per k.inner (guarded where m is not a multiple of 16), then B sums them.
    assert "B.rf[((k.inner*n) + i)] = (B.rf[((k.inner*n) + i)] + A[(((k.outer*16) + (i*m)) + k.inner)])" in text
    assert "for (k.inner.v, 0, 16) {\n      B[ax0] = (B[ax0] + B.rf[((k.inner.v*n) + ax0)])" in text
    a = random((5, 37))
    (b,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(b, a.sum(axis=1))


def _two_axis_sum():
    n = te.var("n")
    k1, k2 = te.reduce_axis((0, n), name="k1"), te.reduce_axis((0, n), name="k2")
    A = te.placeholder((n, n, n), name="A")
    B = te.compute((n,), lambda i: te.sum(A[i, k1, k2], axis=[k1, k2]), name="B")
    return n, k1, k2, A, B


@BOTH
@pytest.mark.parametrize("case", ["plain", "split", "factor_axis"])
def test_rfactor(case, exact):
    """TVM's test_rfactor: the factored shapes and axes, and the values they compute."""
    n, k1, k2, A, B = _two_axis_sum()
    s = te.create_schedule(B.op)
    if case == "plain":
        BF = s.rfactor(B, k1)
        assert len(BF.shape) == 2 and all(bool(d == n) for d in BF.shape)
        assert list(BF.op.body[0].axis) == [k2]
        assert bool(s[B].op.body[0].axis[0].dom.extent == n)
        assert len(s[B].all_iter_vars) == 2
    else:
        ko, ki = s[B].split(k1, factor=4)
        s[B].split(B.op.axis[0], factor=8)
        BF = s.rfactor(B, ki, 1 if case == "factor_axis" else 0)
        four, other = (1, 0) if case == "factor_axis" else (0, 1)
        assert te.const(4) == BF.shape[four] and bool(BF.shape[other] == n)
        assert BF.op.body[0].axis[0] is k2 and BF.op.body[0].axis[1].var is ko.var
        assert te.const(4) == s[B].op.body[0].axis[0].dom.extent
    a = random((6, 6, 6))
    (b,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(b, a.sum(axis=(1, 2)))


@BOTH
def test_rfactor_of_an_argmax_keeps_both_values(exact):
    def fcombine(x, y):
        lhs = te.if_then_else(x[1] >= y[1], x[0], y[0])
        rhs = te.if_then_else(x[1] >= y[1], x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return te.const(-1, t0), te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    m, n = 4, 12
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="float32")
    k = te.reduce_axis((0, n), "k")
    T0, T1 = te.compute((m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="T")
    s = te.create_schedule(T0.op)
    ko, ki = s[T0].split(k, factor=4)
    BF = s.rfactor(T0, ki)
    assert isinstance(BF, list) and len(BF) == 2
    rng = np.random.default_rng(3)
    v = rng.permutation(m * n).reshape(m, n).astype("float32")
    i = np.tile(np.arange(n, dtype="int32"), (m, 1))
    out0, out1 = run(s, [idx, val, T0, T1], [i, v], exact)
    np.testing.assert_array_equal(out0, v.argmax(axis=1))
    np.testing.assert_array_equal(out1, v.max(axis=1))


def test_rfactor_refuses_bad_input_and_leaves_the_schedule_alone():
    A, B = _row_sum()
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    before = [st.name for st in s.stages]
    with pytest.raises(te.ScheduleError, match="'i' is not a reduction axis"):
        s.rfactor(B, B.op.axis[0])
    with pytest.raises(te.ScheduleError, match="not a leaf"):
        s.rfactor(B, B.op.reduce_axis[0])
    with pytest.raises(te.ScheduleError, match="factor_axis 3 is out of range"):
        s.rfactor(B, ki, 3)
    with pytest.raises(TypeError, match="axis must be an IterVar"):
        s.rfactor(B, "k")
    C = te.compute((4,), lambda i: te.const(1.0, "float32"), name="C")
    with pytest.raises(te.ScheduleError, match="not a reduction"):
        te.create_schedule(C.op).rfactor(C, C.op.axis[0])
    assert [st.name for st in s.stages] == before and s[B].leaf_iter_vars[-1] is ki


def _cross_thread(B):
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    BF = BF[0] if isinstance(BF, list) else BF
    xo, xi = s[B].split(s[B].op.axis[0], factor=32)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.y"))
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(s[B].op.reduce_axis[0], tx)
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    s[B].set_store_predicate(tx.var.equal(0))
    return s


@BOTH
def test_tutorial_cross_thread_reduction(exact):
    A, B = _row_sum()
    s = _cross_thread(B)
    text = str(lower(s, [A, B], exact=exact))
    # TVM: each thread's partial sum goes to tvm_thread_allreduce over threadIdx.x; thread 0 stores.
    assert "reduce_scope = 0\n  tvm_thread_allreduce((uint32)1, B.rf[0], " in text
    assert ", reduce_temp0, threadIdx.x)" in text
    assert "if (((threadIdx.x == 0) && (((blockIdx.x*32) + threadIdx.y) < n))) {\n    B[" in text
    a = random((40, 37))  # a partial block of rows and a partial split of the columns
    (b,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(b, a.sum(axis=1))


@BOTH
def test_cross_thread_argmax_combines_both_values(exact):
    def fcombine(x, y):
        return (te.if_then_else(x[1] >= y[1], x[0], y[0]), te.if_then_else(x[1] >= y[1], x[1], y[1]))

    argmax = te.comm_reducer(fcombine, lambda t0, t1: (te.const(-1, t0), te.min_value(t1)), name="argmax")
    m, n = 5, 40
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="float32")
    k = te.reduce_axis((0, n), "k")
    T0, T1 = te.compute((m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="T")
    s = _cross_thread(T0)
    v = np.random.default_rng(4).permutation(m * n).reshape(m, n).astype("float32")
    i = np.tile(np.arange(n, dtype="int32"), (m, 1))
    out0, out1 = run(s, [idx, val, T0, T1], [i, v], exact)
    np.testing.assert_array_equal(out0, v.argmax(axis=1))
    np.testing.assert_array_equal(out1, v.max(axis=1))


@BOTH
@pytest.mark.parametrize("split", ["nparts", "factor"])
def test_a_reduction_partly_bound_to_threads_reduces_the_rest_first(split, exact):
    """TVM's cross-thread reduction with a normal reduction: each thread sums its share over the
    loop not bound to a thread into a local temporary, then the threads combine them."""
    A, B = _row_sum()
    s = te.create_schedule(B.op)
    k = B.op.reduce_axis[0]
    tx = te.thread_axis("threadIdx.x")
    if split == "nparts":
        outer, inner = s[B].split(k, nparts=16)
        s[B].bind(outer, tx)
    else:
        outer, inner = s[B].split(k, factor=16)
        s[B].bind(inner, tx)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].set_store_predicate(tx.var.equal(0))
    text = str(lower(s, [A, B], exact=exact))
    normal = (outer if split == "factor" else inner).name
    assert "normal_reduce_temp0[0] = 0.000000f\n" in text
    assert f"for ({normal}, 0, " in text
    assert "tvm_thread_allreduce((uint32)1, normal_reduce_temp0[0], (bool)1, reduce_temp0, threadIdx.x)" in text
    assert text.index("normal_reduce_temp0[0] = (normal_reduce_temp0[0] + A[") < text.index("tvm_thread_allreduce")
    a = random((6, 70), seed=5)  # 70 is no multiple of 16: the threads' shares have tails
    (b,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(b, a.sum(axis=1))


@BOTH
def test_argmax_partly_bound_to_threads(exact):
    def fcombine(x, y):
        return (te.if_then_else(x[1] >= y[1], x[0], y[0]), te.if_then_else(x[1] >= y[1], x[1], y[1]))

    argmax = te.comm_reducer(fcombine, lambda t0, t1: (te.const(-1, t0), te.min_value(t1)), name="argmax")
    m, n = 4, 50
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="float32")
    k = te.reduce_axis((0, n), "k")
    T0, T1 = te.compute((m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="T")
    s = te.create_schedule(T0.op)
    ko, ki = s[T0].split(k, nparts=8)
    tx = te.thread_axis("threadIdx.x")
    s[T0].bind(ko, tx)
    s[T0].set_store_predicate(tx.var.equal(0))
    v = np.random.default_rng(6).permutation(m * n).reshape(m, n).astype("float32")
    i = np.tile(np.arange(n, dtype="int32"), (m, 1))
    out0, out1 = run(s, [idx, val, T0, T1], [i, v], exact)
    np.testing.assert_array_equal(out0, v.argmax(axis=1))
    np.testing.assert_array_equal(out1, v.max(axis=1))


def test_set_store_predicate_wants_a_condition():
    A, B = _row_sum()
    s = te.create_schedule(B.op)
    with pytest.raises(TypeError, match="must be a condition"):
        s[B].set_store_predicate(B.op.axis[0].var + 1)
