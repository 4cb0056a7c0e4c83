"""TVM's test_te_tensor, written anew: tensors, rank-zero and sliced reads, reductions (several
axes, custom reducers, several outputs with a condition), scans, externs, tuple outputs and a
tensorized pool; each builds equal to NumPy where TVM builds it (and where it only declares, a
build checks the declaration computes what it says)."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build, lower, schedule_ops
from lower.ir.stmt import For, Realize
from lower.ir.stmt_functor import walk

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])


def test_tensor():
    m, n, l = te.size_var("m"), te.size_var("n"), te.size_var("l")
    A, B = te.placeholder((m, l), name="A"), te.placeholder((n, l), name="B")
    T = te.compute((m, n, l), lambda i, j, k: A[i, k] * B[j, k])
    assert tuple(T.shape) == (m, n, l) and isinstance(A.op, te.PlaceholderOp)
    assert A == A and T.op.output(0) == T and hash(T.op.output(0)) == hash(T)
    assert {T.op.output(0): 1}[T] == 1
    assert T[0][0][0].astype("float16").dtype == "float16"


@BOTH
def test_rank_zero(exact):
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")
    scale = te.placeholder((), name="s")
    k = te.reduce_axis((0, m), name="k")
    T = te.compute((), lambda: te.sum(A[k] * scale(), axis=k), name="T")
    assert tuple(T.shape) == ()
    a, sc = random((7,)), np.array(3, "float32")
    (t,) = run(te.create_schedule(T.op), [A, scale, T], [a, sc], exact)
    assert float(t) == float((a * 3).sum())


@BOTH
def test_conv1d_and_tensor_slice(exact):
    n = te.size_var("n")
    A = te.placeholder((n + 2,), name="A")
    B = te.compute((n,), lambda ii: A[ii] + A[ii + 1] + A[ii + 2], name="B")
    C = te.compute((n, n), lambda i, j: 1.0, name="C")
    D = te.compute((n,), lambda i: C[0][i] + C[0][i], name="D")
    a = random((9,))
    (b,) = run(te.create_schedule(B.op), [A, B], [a], exact)
    np.testing.assert_array_equal(b, a[:-2] + a[1:-1] + a[2:])
    (d,) = run(te.create_schedule(D.op), [D], [], exact, shapes=[(4,)])
    np.testing.assert_array_equal(d, np.full(4, 2.0))


@BOTH
def test_reductions(exact):
    m, n = te.size_var("m"), te.size_var("n")
    A = te.placeholder((m, n), name="A")
    k1, k2 = te.reduce_axis((0, n), "k1"), te.reduce_axis((0, m), "k2")
    C = te.compute((1,), lambda _: te.sum(A[k2, k1], axis=(k1, k2)), name="C")
    k = te.reduce_axis((0, n), "k")
    mysum = te.comm_reducer(lambda x, y: x + y, lambda t: te.const(0, dtype=t), name="mysum")
    D = te.compute((m,), lambda i: mysum(A[i, k], axis=k), name="D")
    assert bool(mysum(m, n) == m + n)  # the reducer on two expressions combines them
    a = random((4, 6))
    (c,) = run(te.create_schedule(C.op), [A, C], [a], exact)
    (d,) = run(te.create_schedule(D.op), [A, D], [a], exact)
    np.testing.assert_array_equal(c, [a.sum()])
    np.testing.assert_array_equal(d, a.sum(axis=1))


@BOTH
def test_tensor_reduce_round_trips_as_json(exact):
    m, n, l = te.size_var("m"), te.size_var("n"), te.size_var("l")
    A, B = te.placeholder((m, l), name="A"), te.placeholder((n, l), name="B")
    T = te.compute((m, n, l), lambda i, j, k: A[i, k] * B[j, k], name="T")
    rv = te.reduce_axis((0, A.shape[1] - 1), "k")
    C = te.compute((m, n), lambda i, j: te.sum(T(i, j, rv + 1), axis=rv), name="C")
    loaded = te.load_json(te.save_json(C))
    assert isinstance(loaded, te.Tensor) and str(loaded.op.body[0]) == str(C.op.body[0])
    A2, B2 = loaded.op.input_tensors[0].op.input_tensors
    a, b = random((3, 5), seed=1), random((2, 5), seed=2)
    c = run(te.create_schedule(loaded.op), [A2, B2, loaded], [a, b], exact)[0]
    np.testing.assert_array_equal(c, np.einsum("ik,jk->ij", a[:, 1:], b[:, 1:]))


@BOTH
def test_tensor_reduce_multiout_with_cond(exact):
    mysum = te.comm_reducer(lambda x, y: (x[0] + y[0], x[1] + y[1]),
                            lambda t0, t1: (te.const(0, t0), te.const(1, t1)), name="mysum")
    m, n = te.var("m"), te.var("n")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="int32")
    k = te.reduce_axis((0, n), "k")
    T0, T1 = te.compute((m,), lambda i: mysum((idx[i, k], val[i, k]), axis=k, where=te.floormod(k, 2) == 0),
                        name="T")
    i_, v = np.arange(15, dtype="int32").reshape(3, 5), np.arange(15, 30, dtype="int32").reshape(3, 5)
    t0, t1 = np.full(3, -9, "int32"), np.full(3, -9, "int32")
    build(te.create_schedule(T0.op), [idx, val, T0, T1], exact=exact)(i_, v, t0, t1)
    np.testing.assert_array_equal(t0, i_[:, ::2].sum(axis=1))
    np.testing.assert_array_equal(t1, 1 + v[:, ::2].sum(axis=1))


@BOTH
def test_scans(exact):
    m, n = te.size_var("m"), te.size_var("n")
    x1, s1, x2, s2 = (te.placeholder((m, n), name=name) for name in ("x1", "s1", "x2", "s2"))
    r0, r1 = te.scan([te.compute((1, n), lambda _, i: x1[0, i], name="i1"),
                      te.compute((1, n), lambda _, i: x2[0, i], name="i2")],
                     [te.compute((m, n), lambda t, i: s1[t - 1, i] + s2[t - 1, i] + x1[t, i], name="u1"),
                      te.compute((m, n), lambda t, i: x2[t, i] + s2[t - 1, i], name="u2")], [s1, s2])
    assert r0.value_index == 0 and r1.value_index == 1 and tuple(r0.shape) == (m, n)
    assert isinstance(te.load_json(te.save_json(r0.op)), te.ScanOp)
    a, b = random((5, 3), seed=3), random((5, 3), seed=4)
    o0, o1 = run(te.create_schedule(r0.op), [x1, x2, r0, r1], [a, b], exact)
    expected1 = np.cumsum(b, axis=0)
    np.testing.assert_array_equal(o1, expected1)
    expected0 = a.copy()
    for t in range(1, 5):
        expected0[t] = expected0[t - 1] + expected1[t - 1] + a[t]
    np.testing.assert_array_equal(o0, expected0)


@BOTH
def test_externs_and_tuple_inputs(exact):
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i] * 10, name="B")
    te.register_func("test_tensor.add_both", lambda a, b, c, d, n: (np.copyto(c, a + b), np.copyto(d, a - b)),
                     override=True)
    res = te.extern([A.shape, A.shape], [A, B],
                    lambda ins, outs: te.call_packed("test_tensor.add_both", ins[0], ins[1], outs[0], outs[1], m))
    assert len(res) == 2 and res[1].value_index == 1
    a = random((6,))
    c, d = run(te.create_schedule(res[0].op), [A, *res], [a], exact)
    np.testing.assert_array_equal(c, a * 11)
    np.testing.assert_array_equal(d, a * -9)
    A0, A1 = te.placeholder((m, m), name="A0"), te.placeholder((m, m), name="A1")
    T0, T1 = te.compute((m, m), lambda i, j: (A0[i, j] * 2, A1[i, j] * 3), name="T")
    assert T0.op is T1.op and (T0.value_index, T1.value_index) == (0, 1)
    assert all(bool(p == q) for p, q in zip(T0.shape, T1.shape))


@BOTH
def test_tuple_with_different_deps(exact):
    m, n = te.size_var("m"), te.size_var("n")
    A0, A1 = te.placeholder((m, n), name="A1"), te.placeholder((m, n), name="A2")
    B0, B1 = te.compute((m, n), lambda i, j: (A0[i, j] * 2, A1[i, j] * 3), name="B")
    C = te.compute((m, n), lambda i, j: B0[i, j] + 4, name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(C.op.axis[0], factor=10)
    s[B0.op].compute_at(s[C], xo)
    stmt = schedule_ops(s.normalize())
    realizes = [x for x in walk(stmt) if isinstance(x, Realize) and x.op is B1.op and x.value_index == 1]
    assert isinstance(stmt, Realize) and stmt.op is C.op and len(realizes) == 1
    a0, a1 = random((13, 4), seed=5), random((13, 4), seed=6)
    (c,) = run(s, [A0, A1, C], [a0, a1], exact)
    np.testing.assert_array_equal(c, a0 * 2 + 4)


@BOTH
def test_tensor_pool_tensorized(exact):
    def intrin_pool():
        A = te.placeholder((4, 6, 6), name="A")
        kh, kw = te.reduce_axis((0, 3), name="kh"), te.reduce_axis((0, 3), name="kw")
        P = te.compute((4, 4, 4), lambda c, oh, ow: te.max(A[c, oh + kh, ow + kw], axis=[kh, kw]), name="p")
        return te.decl_tensor_intrin(P.op, lambda ins, outs: te.call_packed("test_tensor.pool", ins[0], outs[0]),
                                     default_buffer_params={"offset_factor": 1})

    def pool(inp, out):
        w = np.lib.stride_tricks.sliding_window_view(inp, (3, 3), axis=(1, 2))
        out[...] = w.max(axis=(3, 4))

    te.register_func("test_tensor.pool", pool, override=True)
    A = te.placeholder((1, 4, 6, 6), name="A")
    P = topi.nn.pool2d(A, 3, 1, 1, (0, 0, 0, 0), "max")  # no padding, so no pad_temp stage
    s = te.create_schedule(P.op)
    s[P].tensorize(P.op.axis[1], intrin_pool())  # TVM names this axis oh; it is the channel
    assert "test_tensor.pool" in str(lower(s, [A, P], exact=exact))
    a = random((1, 4, 6, 6), seed=7)
    (p,) = run(s, [A, P], [a], exact)
    np.testing.assert_array_equal(p[0], np.lib.stride_tricks.sliding_window_view(a[0], (3, 3), axis=(1, 2)).max(axis=(3, 4)))


@BOTH
def test_tensor_scalar_mixed_and_scalar(exact):
    te.register_func("test_tensor.scale", lambda t, k, out: np.copyto(out, t * k), override=True)
    te.register_func("test_tensor.copy", lambda x, y: np.copyto(y, x), override=True)
    A, B = te.placeholder((10,), name="A"), te.placeholder((1,), name="B")
    C = te.extern((10,), [A, B], lambda ins, outs: te.call_packed("test_tensor.scale", ins[0], ins[1], outs[0]),
                  name="C")
    a, b = random((10,), seed=8), np.array([3], "float32")
    (c,) = run(te.create_schedule(C.op), [A, B, C], [a, b], exact)
    np.testing.assert_array_equal(c, a * 3)
    S = te.placeholder((1,), name="S")
    D = te.extern((1,), [S], lambda ins, outs: te.call_packed("test_tensor.copy", ins[0], outs[0]), name="D")
    (d,) = run(te.create_schedule(D.op), [S, D], [b], exact)
    np.testing.assert_array_equal(d, b)


def _vadd(n):
    x, y = te.placeholder((n,), name="x"), te.placeholder((n,), name="y")
    z = te.compute(x.shape, lambda i: x[i] + y[i], name="z")

    def intrin_func(ins, outs):
        ib = te.ir_builder.create()
        ib.emit(te.call_extern(outs[0].dtype, "test_tensor.vadd", ins[0].access_ptr("r"), ins[1].access_ptr("r"),
                               outs[0].access_ptr("wr")))
        return ib.get()

    return te.decl_tensor_intrin(z.op, intrin_func, default_buffer_params={"offset_factor": n})


@BOTH
def test_tensor_compute1(exact):
    """A tensor intrinsic called on slices inside te.compute (TVM's TensorComputeOp)."""
    te.register_func("test_tensor.vadd", lambda a, b, c: np.copyto(c, a + b), override=True)
    m, factor = 64, 16
    vadd = _vadd(factor)
    A = te.placeholder((m // factor, factor), name="A")
    B = te.placeholder((m // factor, factor), name="B")
    C = te.compute((m // factor, factor), lambda i: vadd(A[i, 0:factor], B[i, 0:factor]), name="C")
    s = te.create_schedule(C.op)
    loop = lower(s, [A, B, C], exact=exact).body.body  # produce C { for (i) { call } }
    assert str(loop.body).startswith('call_extern("test_tensor.vadd"')
    a, b = random((4, 16), seed=1), random((4, 16), seed=2)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_array_equal(c, a + b)


def _gemm(m, n, l):
    k = te.reduce_axis((0, l), name="kk")
    x, y = te.placeholder((m, l), name="x"), te.placeholder((n, l), name="y")
    z = te.compute((m, n), lambda i, j: te.sum(x[i][k] * y[j][k], axis=k), name="z")

    def intrin_func(ins, outs):
        x_ptr, y_ptr, z_ptr = ins[0].access_ptr("r"), ins[1].access_ptr("r"), outs[0].access_ptr("w")
        return (te.call_packed("test_tensor.gemv", x_ptr, y_ptr, z_ptr, m, n, l),
                te.call_packed("test_tensor.fill_zero", z_ptr, m, n),
                te.call_packed("test_tensor.gemv_add", x_ptr, y_ptr, z_ptr, m, n, l))

    return te.decl_tensor_intrin(z.op, intrin_func, default_buffer_params={"offset_factor": n})


@BOTH
def test_tensor_compute2(exact):
    """A reducing intrinsic over slices with an outer reduction: its reset, then its update
    in the loop over the outer reduction."""
    def gemv(x, y, z, m, n, l, add=False):
        prod = (x.reshape(m, l) @ y.reshape(n, l).T).reshape(-1)
        np.copyto(z, z + prod if add else prod)

    te.register_func("test_tensor.gemv", gemv, override=True)
    te.register_func("test_tensor.gemv_add", lambda *a: gemv(*a, add=True), override=True)
    te.register_func("test_tensor.fill_zero", lambda z, m, n: z.fill(0), override=True)
    M, N, L, f, f1, f2 = 8, 8, 8, 4, 2, 2
    vgemm = _gemm(f1, f2, f)
    A = te.placeholder((M // f1, L // f, f1, f), name="A")
    B = te.placeholder((N // f2, L // f, f2, f), name="B")
    k = te.reduce_axis((0, L // f), name="k")
    C = te.compute((M // f1, N // f2, f1, f2),
                   lambda i, j: vgemm(A[i, k, 0:f1, 0:f], B[j, k, 0:f2, 0:f], reduce_axis=k), name="C")
    s = te.create_schedule(C.op)
    body = lower(s, [A, B, C], exact=exact).body.body.body.body  # produce C { for i { for j { ... } } }
    assert str(body.seq[0]).startswith('tvm_call_packed("test_tensor.fill_zero"')
    assert isinstance(body.seq[1], For) and str(body.seq[1].body).startswith('tvm_call_packed("test_tensor.gemv_add"')
    a, b = random((M // f1, L // f, f1, f), seed=3), random((N // f2, L // f, f2, f), seed=4)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_array_equal(c, np.einsum("ikac,jkbc->ijab", a, b))
