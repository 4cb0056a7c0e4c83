"""The scenarios of TVM's test_te_schedule_ops.py, written anew: each lowers and builds equal to NumPy.

Not ported: scan, tensorize and schedule records (features we do not have); TVM's
AutoInline* helpers are replaced by the compute_inline calls they make. The local-stage
predicate cases are in tests/lower/test_threads.py, inline_mixed in tests/bound/test_tvm_cases.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])


def _copy_then_add():
    m, l = te.var("m"), te.var("l")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")
    return A, A1, A2


@BOTH
@pytest.mark.parametrize("case", ["schedule0", "schedule1", "schedule2"])
def test_schedule0_to_2_copy_split_pragma_compute_at(case, exact):
    A, A1, A2 = _copy_then_add()
    out = A1 if case != "schedule2" else A2
    s = te.create_schedule(out.op)
    if case != "schedule0":
        xo, xi = s[out].split(out.op.axis[0], 8)
        if case == "schedule1":
            s[out].pragma(xo, "auto_unroll_max_step", 10)
        else:
            s[A1].compute_at(s[A2], xo)
    a = random((19, 3))
    (result,) = run(s, [A, out], [a], exact)
    np.testing.assert_array_equal(result, a if case != "schedule2" else a + 3)


@BOTH
def test_inline_into_a_multi_value_reduction(exact):
    def argmax_comp(x, y):
        idx = te.select(x[1] >= y[1], x[0], y[0])
        val = te.select(x[1] >= y[1], x[1], y[1])
        return idx, val

    def argmax_init(idx_typ, val_typ):
        return te.const(-1, idx_typ), te.min_value(val_typ)

    argmax = te.comm_reducer(argmax_comp, argmax_init, name="argmax")
    m, n = te.var("m"), te.var("n")
    val = te.placeholder((m, n), name="val", dtype="float32")
    val1 = te.compute((m, n), lambda i, j: val[i, j] + 1, name="val1")
    val2 = te.compute((m, n), lambda i, j: te.exp(val1[i, j]), name="val2")
    k = te.reduce_axis((0, n), "k")
    T_idx, T_val = te.compute((m,), lambda i: argmax((k.var, val2[i, k]), axis=k), name="T")
    s = te.create_schedule(T_idx.op)
    s[val1].compute_inline()
    v = np.random.default_rng(2).standard_normal((4, 6)).astype("float32")
    idx, best = run(s, [val, T_idx, T_val], [v], exact)
    np.testing.assert_array_equal(idx, v.argmax(axis=1))
    np.testing.assert_allclose(best, np.exp(v + 1).max(axis=1), rtol=1e-6)


@BOTH
@pytest.mark.parametrize("kind", ["elemwise", "broadcast", "injective"])
def test_inlining_elementwise_broadcast_and_injective_stages(kind, exact):
    """TVM's test_auto_inline, with the compute_inline its AutoInline helpers would make."""
    m, n = te.var("m"), te.var("n")
    B = te.placeholder((m, n), name="B")
    C = te.placeholder((m, n), name="C")
    if kind == "elemwise":
        A = te.placeholder((m, n), name="A")
        T1 = te.compute((m, n), lambda i, j: A(i, j) * B(i, j), name="T1")
    elif kind == "broadcast":
        A = te.placeholder((1,), name="A")
        T1 = te.compute((m, n), lambda i, j: A(0) * B(i, j), name="T1", tag="broadcast")
    else:
        A = te.placeholder((m,), name="A")
        T1 = te.compute((m, n), lambda i, j: A(i) * B(i, j), name="T1")
    T2 = te.compute((m, n), lambda i, j: T1(i, j) + C(i, j), name="T2")
    s = te.create_schedule(T2.op)
    assert s[T1].attach_type == 1
    s[T1].compute_inline()
    assert s[T1].attach_type == 2
    a = random({"elemwise": (3, 4), "broadcast": (1,), "injective": (3,)}[kind], seed=1)
    b, c = random((3, 4), seed=2), random((3, 4), seed=3)
    (t2,) = run(s, [A, B, C, T2], [a, b, c], exact)
    a_full = a if kind == "elemwise" else (a[0] if kind == "broadcast" else a[:, None])
    np.testing.assert_array_equal(t2, a_full * b + c)


@BOTH
def test_schedule_const_bound(exact):
    A = te.placeholder((128,), name="A")
    A1 = te.compute((128,), lambda i: A[i] + 1, name="A1")
    s = te.create_schedule(A1.op)
    s[A1].split(A1.op.axis[0], 8)
    a = random((128,))
    (a1,) = run(s, [A, A1], [a], exact)
    np.testing.assert_array_equal(a1, a + 1)


def _product():
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), name="A")
    B = te.placeholder((m, n), name="B")
    C = te.compute((m, n), lambda i, j: A(i, j) * B(i, j), name="C")
    return A, B, C


@BOTH
def test_schedule_cache(exact):
    A, B, C = _product()
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", readers=[C])
    CC = s.cache_write(C, "shared")
    s[AA].compute_at(s[CC], CC.op.axis[0])
    a, b = random((4, 5), seed=1), random((4, 5), seed=2)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_array_equal(c, a * b)


@BOTH
def test_schedule_middle_cache(exact):
    A, B, C = _product()
    m, n = C.shape
    D = te.compute((m, n), lambda i, j: C(i, j), name="D")
    s = te.create_schedule(D.op)
    s.cache_read(A, "local", readers=[C])
    s.cache_read(B, "local", readers=[C])
    s.cache_read(C, "local", readers=[D])
    s.cache_write(D, "local")
    a, b = random((4, 5), seed=1), random((4, 5), seed=2)
    (d,) = run(s, [A, B, D], [a, b], exact)
    np.testing.assert_array_equal(d, a * b)


@BOTH
def test_schedule_cache_relayout1(exact):
    A, B, C = _product()
    s = te.create_schedule(C.op)
    s[C].reorder(C.op.axis[1], C.op.axis[0])
    s.cache_write(C, "global")
    a, b = random((4, 5), seed=1), random((4, 5), seed=2)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_array_equal(c, a * b)


@BOTH
def test_schedule_cache_relayout2(exact):
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m * 4, n), name="A")
    B = te.placeholder((m * 4, n), name="B")
    C = te.compute(A.shape, lambda i, j: A(i, j) * B(i, j), name="C")
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    xo, xi = s[C].split(x, factor=4)
    s[C].reorder(xo, y, xi)
    s.cache_write(C, "global")
    s = s.normalize()
    a, b = random((8, 3), seed=1), random((8, 3), seed=2)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_array_equal(c, a * b)


@BOTH
def test_schedule_cache_relayout3(exact):
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m * 4, n), name="A")
    B = te.placeholder((m * 4, n), name="B")
    k = te.reduce_axis((0, n), "k")
    C = te.compute((A.shape[0],), lambda i: te.sum(A(i, k) * B(i, k), axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s.cache_write(C, "global")
    s = s.normalize()
    a, b = random((8, 3), seed=1), random((8, 3), seed=2)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_array_equal(c, (a * b).sum(axis=1))


@BOTH
def test_schedule_cache_relayout4_multi_output(exact):
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m * 4, n), name="A")
    B = te.placeholder((m * 4, n), name="B")
    C1, C2 = te.compute(A.shape, lambda *i: (A(*i) + 1, B(*i) / 2), name="C")
    s = te.create_schedule([C1.op, C2.op])
    C1_cache, C2_cache = s.cache_write([C1, C2], "local")
    s = s.normalize()
    a, b = random((8, 3), seed=1), random((8, 3), seed=2)
    c1, c2 = run(s, [A, B, C1, C2], [a, b], exact)
    np.testing.assert_array_equal(c1, a + 1)
    np.testing.assert_array_equal(c2, b / 2)


@BOTH
def test_loop_dependent_reduction(exact):
    X = te.placeholder(shape=(10,), name="x")

    def f(n):
        rv = te.reduce_axis((0, n))
        return te.sum(X[rv], axis=rv)

    Y = te.compute(X.shape, f, name="y")
    s = te.create_schedule([Y.op])
    x = random((10,))
    (y,) = run(s, [X, Y], [x], exact)
    np.testing.assert_array_equal(y, np.concatenate([[0], np.cumsum(x)[:-1]]))


@BOTH
def test_loop_dependent_reducer_with_cache_write(exact):
    X = te.placeholder(shape=(10,), name="x")

    def f(n):
        rv = te.reduce_axis((0, n))
        init = lambda dtype: te.select(n > 1, te.const(0, dtype), n.astype(dtype))  # noqa: E731
        total = te.comm_reducer(lambda x, y: te.max(x + y, n.astype("float32")), init, name="sum")
        return total(X[rv], axis=rv)

    Y = te.compute(X.shape, f, name="y")
    s = te.create_schedule([Y.op])
    s.cache_write(Y, "local")
    x = random((10,), seed=3)
    (y,) = run(s, [X, Y], [x], exact)
    expected = []
    for n in range(10):
        acc = 0.0 if n > 1 else float(n)
        for r in range(n):
            acc = max(acc + float(x[r]), float(n))
        expected.append(acc)
    np.testing.assert_array_equal(y, expected)


@BOTH
def test_reduction_and_dummy_fuse_split(exact):
    n = 10
    X = te.placeholder(shape=(n,), dtype="int32", name="X")
    k = te.reduce_axis((0, n))
    Y = te.compute((), lambda: te.sum(X[k], k), name="Y")
    s = te.create_schedule([Y.op])
    ax = s[Y.op].fuse(*Y.op.axis)
    s[Y.op].split(ax, nparts=20)
    (y,) = run(s, [X, Y], [np.ones(n, "int32")], exact)
    assert y.shape == () and int(y) == n

    X = te.placeholder(shape=(n,), dtype="int32", name="X")
    k = te.reduce_axis((0, n))
    Y = te.compute((n,), lambda i: te.sum(X[k], k), name="Y")
    s = te.create_schedule([Y.op])
    s[Y.op].fuse(*(list(Y.op.axis) + list(Y.op.reduce_axis)))
    (y,) = run(s, [X, Y], [np.ones(n, "int32")], exact)
    np.testing.assert_array_equal(y, np.full(n, n))


@BOTH
def test_schedule_compute_inline_with_caches(exact):
    shape = [10, 1024 // 64]
    A = te.placeholder(shape, name="A")
    B = te.placeholder(shape, name="B")
    C = te.compute(shape, lambda *index: A(*index) + B(*index), name="C")
    F, E = te.compute(shape, lambda *index: (C(*index), C(*index) * B(*index)), name="F")
    s = te.create_schedule([F.op, E.op])
    s.cache_read(A, "local", [C])
    s.cache_read(B, "local", [C, E])
    s.cache_write(C, "local")
    s.cache_write([F, E], "local")
    s[C].compute_inline()
    s = s.normalize()
    a, b = random(shape, seed=1), random(shape, seed=2)
    f, e = run(s, [A, B, F, E], [a, b], exact)
    np.testing.assert_array_equal(f, a + b)
    np.testing.assert_array_equal(e, (a + b) * b)
    assert "C" not in [st.name for st in s.stages if st.attach_type != te.AttachType.InlinedAlready]
