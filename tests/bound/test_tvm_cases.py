"""The cases of TVM's own InferBound tests (docs/tvm_tests.json), in both modes.

``exact=False`` must give TVM's numbers wherever the case does not rely on a rule TVM
tightened after the InferBound document; such cases must hold with ``exact=True``, where a
range may only be tighter than TVM's. Each schedule also builds and computes what NumPy does.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import schedule as te
from bound import infer_bound
from lower import build
from schedule.ir.evaluate import evaluate
from schedule.ir.functor import post_order_visit

from ..ports.run import random, run


def at(expr, **values):
    env = {}
    post_order_visit(expr, lambda x: env.setdefault(x, values[x.name]) if isinstance(x, te.Var) else None)
    return evaluate(expr, env)


def ext(b, iv, **values):
    return at(b[iv].extent, **values)


@pytest.mark.parametrize("exact", [False, True])
def test_bound2_tile_then_attach_at_the_inner_outer_loop(exact):
    m, l = te.var("m"), te.var("l")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")
    s = te.create_schedule(A2.op)
    xo, yo, xi, yi = s[A2].tile(A2.op.axis[0], A2.op.axis[1], 8, 8)
    _ = s.normalize()
    s[A1].compute_at(s[A2], yo)
    b = infer_bound(s, exact=exact)
    if not exact:
        assert int(b[A1.op.axis[0]].extent) == 8 and int(b[A1.op.axis[1]].extent) == 8
    else:  # tight at the tails, 8 elsewhere
        assert ext(b, A1.op.axis[0], m=100, **{"i.outer": 3}) == 8
        assert ext(b, A1.op.axis[0], m=20, **{"i.outer": 2}) == 4
    a = random((20, 13))
    (a2,) = run(s, [A, A2], [a], exact)
    np.testing.assert_array_equal(a2, a + 3)


@pytest.mark.parametrize("exact", [False, True])
def test_split_with_more_parts_than_elements(exact):
    I = te.placeholder((8,), name="I")
    EF = te.compute((8,), lambda i: I[i] * 2, name="EF")
    E = te.compute((8,), lambda i: EF[i] * 2, name="E")
    s = te.create_schedule([E.op])
    xo, xi = s[E].split(s[E].op.axis[0], nparts=32)
    s[EF].compute_at(s[E], xo)
    b = infer_bound(s, exact=exact)
    assert int(b[xo].extent) == (8 if exact else 32)  # v0.7 tightening; the document's TVM keeps 32
    assert int(b[xi].extent) == 1
    i = random((8,))
    (e,) = run(s, [I, E], [i], exact)
    np.testing.assert_array_equal(e, i * 4)


@pytest.mark.parametrize("exact", [False, True])
def test_tile_divisible_symbolic_shape(exact):
    m, l = te.var("m"), te.var("l")
    A = te.placeholder((8 * m, 32 * l), name="A")
    B = te.compute((8 * m, 32 * l), lambda i, j: A[i, j], name="B")
    s = te.create_schedule(B.op)
    xo, yo, xi, yi = s[B].tile(B.op.axis[0], B.op.axis[1], 8, 32)
    b = infer_bound(s, exact=exact)
    assert b[xo].extent.same_as(m) and b[yo].extent.same_as(l)
    assert int(b[xi].extent) == 8 and int(b[yi].extent) == 32
    a = random((16, 64))
    (out,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(out, a)


def _fused_split(l, split):
    m = te.var("m")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")
    s = te.create_schedule(A2.op)
    xo, xi = s[A2].split(s[A2].fuse(A2.op.axis[0], A2.op.axis[1]), split)
    s[A1].compute_at(s[A2], xo)
    return s, A1, xo


@pytest.mark.parametrize("exact", [False, True])
def test_fusesplit1_builds_for_any_factor(exact):
    l, split = te.var("l"), te.var("s")
    s, A1, xo = _fused_split(l, split)
    A, A2 = A1.op.input_tensors[0], s.outputs[0].output(0)
    a = random((5, 7))
    for factor in (1, 3, 4, 35):
        out = np.full((5, 7), np.nan, "float32")
        build(s, [A, A2, split], exact=exact)(a, out, factor)
        np.testing.assert_array_equal(out, a + 3)


def test_fusesplit1_symbolic_factor_faithful_relaxes_the_fuse():
    l, split = te.var("l"), te.var("s")
    s, A1, xo = _fused_split(l, split)
    b = infer_bound(s, exact=False)
    assert int(b[A1.op.axis[0]].min) == 0 and b[A1.op.axis[1]].extent.same_as(l)


def test_fusesplit1_symbolic_factor_exact_is_tvms_aligned_box():
    l, split = te.var("l"), te.var("s")
    s, A1, xo = _fused_split(l, split)
    b = infer_bound(s, exact=True)
    for sv, lv, xv in itertools.product(range(1, 6), repeat=3):
        values = {"s": sv, "l": lv, "i.j.fused.outer": xv, "m": 1000}
        assert at(b[A1.op.axis[0]].min, **values) == (xv * sv) // lv
        expected = ((xv + 1) * sv - 1) // lv - (xv * sv) // lv + 1
        assert at(b[A1.op.axis[0]].extent, **values) == expected
    assert b[A1.op.axis[1]].extent.same_as(l)


@pytest.mark.parametrize("exact", [False, True])
def test_fusesplit2_rows_of_6_in_blocks_of_3(exact):
    s, A1, xo = _fused_split(te.const(6), te.const(3))
    b = infer_bound(s, exact=exact)
    values = {"i.j.fused.outer": 5, "m": 1000}
    got = [(at(b[iv].min, **values), at(b[iv].extent, **values)) for iv in A1.op.axis]
    # The document's TVM relaxes any fused block to whole rows and columns.
    assert got == ([(2, 1), (3, 3)] if exact else [(0, 1000), (0, 6)])
    A, A2 = A1.op.input_tensors[0], s.outputs[0].output(0)
    a = random((7, 6))
    (out,) = run(s, [A, A2], [a], exact)
    np.testing.assert_array_equal(out, a + 3)


@pytest.mark.parametrize("exact", [False, True])
def test_warp_memory_relaxes_threadidx_x_only(exact):
    m, l = te.var("m"), te.var("l")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")
    s = te.create_schedule(A2.op)
    s[A1].set_scope("warp")
    xo, xi = s[A2].split(A2.op.axis[0], 32)
    xi0, xi1 = s[A2].split(xi, factor=16)
    tx = te.thread_axis("threadIdx.x")
    s[A2].bind(xi1, tx)
    s[A2].bind(xi0, te.thread_axis("threadIdx.y"))
    s[A1].compute_at(s[A2], s[A2].op.axis[1])
    _, a1_xi = s[A1].split(s[A1].op.axis[0], factor=16)
    s[A1].bind(a1_xi, tx)
    b = infer_bound(s, exact=exact)
    assert ext(b, A1.op.axis[0], m=1000, **{"i.outer": 3, "threadIdx.y": 1}) == 16
    a = random((64, 3))
    (out,) = run(s, [A, A2], [a], exact)
    np.testing.assert_array_equal(out, a + 3)


@pytest.mark.parametrize("exact", [False, True])
def test_conv1d_three_point_window(exact):
    n = te.var("n")
    A = te.compute((n + 2,), lambda i: 1, name="A")
    B = te.compute((n,), lambda ii: A[ii] + A[ii + 1] + A[ii + 2], name="B")
    s = te.create_schedule(B.op)
    s[A].compute_at(s[B], B.op.axis[0])
    assert int(infer_bound(s.normalize(), exact=exact)[A.op.axis[0]].extent) == 3
    (out,) = run(s, [B], [], exact, shapes=[(6,)])  # n comes from the output's shape
    np.testing.assert_array_equal(out, np.full(6, 3.0))


@pytest.mark.parametrize("exact", [False, True])
def test_blur_cross_stencil_becomes_a_3x3_box(exact):
    A = te.compute((12, 12), lambda i, j: 1, name="A")

    def stencil(ii, jj):
        i, j = ii + 1, jj + 1
        return A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j + 1] + A[i][j - 1]

    B = te.compute((10, 10), stencil, name="B")
    s = te.create_schedule(B.op)
    s[A].compute_at(s[B], B.op.axis[1])
    b = infer_bound(s.normalize(), exact=exact)
    assert [int(b[iv].extent) for iv in A.op.axis] == [3, 3]
    (out,) = run(s, [B], [], exact)
    np.testing.assert_array_equal(out, np.full((10, 10), 5.0))


def _gemm(n=1024):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda ii, jj: te.sum(A[ii, k] * B[jj, k], axis=k), name="CC")
    s = te.create_schedule(C.op)
    block_x, thread_x = te.thread_axis("blockIdx.x"), te.thread_axis("threadIdx.x")
    block_y, thread_y = te.thread_axis("blockIdx.y"), te.thread_axis("threadIdx.y")
    CC = s.cache_write(C, "local")
    AA = s.cache_read(A, "shared", [CC])
    BB = s.cache_read(B, "shared", [CC])
    by, yi = s[C].split(C.op.axis[0], factor=64)
    bx, xi = s[C].split(C.op.axis[1], factor=64)
    s[C].reorder(by, bx, yi, xi)
    s[C].bind(by, block_y)
    s[C].bind(bx, block_x)
    ty, yi = s[C].split(yi, nparts=8)
    tx, xi = s[C].split(xi, nparts=8)
    s[C].reorder(ty, tx, yi, xi)
    s[C].bind(ty, thread_y)
    s[C].bind(tx, thread_x)
    yo, xo = CC.op.axis
    s[CC].reorder(k, yo, xo)
    s[CC].compute_at(s[C], tx)
    s[AA].compute_at(s[CC], k)
    s[BB].compute_at(s[CC], k)
    for stage in (s[AA], s[BB]):
        ty, xi = stage.split(stage.op.axis[0], nparts=8)
        tx, xi = stage.split(xi, nparts=8)
        stage.bind(ty, thread_y)
        stage.bind(tx, thread_x)
    return s, AA, BB, CC, (A, B, C)


@pytest.mark.parametrize("exact", [False, True])
def test_gemm_shared_and_local_caches(exact):
    s, AA, BB, CC, _ = _gemm()
    b = infer_bound(s.normalize(), exact=exact)
    assert int(b[BB.op.axis[0]].extent) == 64 and int(b[AA.op.axis[0]].extent) == 64
    assert int(b[CC.op.axis[0]].extent) == 8 and int(b[CC.op.axis[1]].extent) == 8
    assert str(b[CC.op.axis[0]].min) == "((blockIdx.y*64) + (threadIdx.y*8))"


@pytest.mark.parametrize("exact", [False, True])
def test_gemm_builds_with_its_caches_at_one_block(exact):
    s, _, _, _, (A, B, C) = _gemm(64)
    a, b = random((64, 64), seed=1), random((64, 64), seed=2)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_array_equal(c, a @ b.T)


@pytest.mark.parametrize("exact", [False, True])
def test_cache_read_for_readers_that_read_each_other(exact):
    A = te.placeholder((255,), name="A")
    B = te.compute((255,), lambda i: A[i] + A[i], name="B")
    C = te.compute((255,), lambda i: A[i] + B[i], name="C")
    D = te.compute((255,), lambda i: A[i] + C[i], name="D")
    E = te.compute((255,), lambda i: A[i] + D[i], name="E")
    s = te.create_schedule(E.op)
    AL = s.cache_read(A, "local", [B, C, D, E])
    b = infer_bound(s, exact=exact)
    assert int(b[AL.op.axis[0]].extent) == 255
    assert int(b[B.op.axis[0]].extent) == 255
    a = random((255,))
    (e,) = run(s, [A, E], [a], exact)
    np.testing.assert_array_equal(e, 5 * a)


@pytest.mark.parametrize("exact", [False, True])
def test_inline_mixed(exact):
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    A1 = te.compute(A.shape, lambda *i: A(*i) + 1, name="A1")
    A2 = te.compute(A.shape, lambda *i: A1(*i) + 2, name="A2")
    C = te.compute((n,), lambda i: A2[i] + A1[i], name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=8)
    s[A1].compute_at(s[C], xo)
    s[A2].compute_inline()
    sn = s.normalize()
    assert all(t.op is not A2.op for t in sn[C].op.input_tensors)
    b = infer_bound(sn, exact=exact)
    assert A2.op.axis[0] not in b
    assert ext(b, A1.op.axis[0], n=100, **{"i.outer": 2}) == 8
    a = random((21,))
    (c,) = run(s, [A, C], [a], exact)
    np.testing.assert_array_equal(c, 2 * a + 4)


@pytest.mark.parametrize("exact", [False, True])
def test_middle_cache_and_relayout_cases_infer(exact):
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), name="A")
    B = te.placeholder((m, n), name="B")
    C = te.compute((m, n), lambda i, j: A(i, j) * B(i, j), name="C")
    D = te.compute((m, n), lambda i, j: C(i, j), name="D")
    s = te.create_schedule(D.op)
    s.cache_read(A, "local", readers=[C])
    s.cache_read(B, "local", readers=[C])
    CC = s.cache_read(C, "local", readers=[D])
    DD = s.cache_write(D, "local")
    b = infer_bound(s, exact=exact)
    assert b[CC.op.axis[0]].extent.same_as(m) and b[DD.op.axis[1]].extent.same_as(n)
    s2 = te.create_schedule(C.op)
    xo, xi = s2[C].split(C.op.axis[0], factor=4)
    s2[C].reorder(xo, C.op.axis[1], xi)
    CG = s2.cache_write(C, "global")
    b2 = infer_bound(s2, exact=exact)
    # Exact mode knows that i % 4 takes fewer than 4 values when m < 4.
    inner = "min(4, m)" if exact else "4"
    assert [str(b2[iv].extent) for iv in CG.op.axis] == ["floordiv((m + 3), 4)", "n", inner]


@pytest.mark.parametrize("exact", [False, True])
def test_const_split_tail(exact):
    A = te.placeholder((21,), name="A")
    B = te.placeholder((21,), name="B")
    T = te.compute((21,), lambda i: A[i] + B[i])
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=4)
    b = infer_bound(s, exact=exact)
    assert (int(b[xo].extent), int(b[xi].extent)) == (6, 4)
    a, bb = random((21,), seed=1), random((21,), seed=2)
    (t,) = run(s, [A, B, T], [a, bb], exact)
    np.testing.assert_array_equal(t, a + bb)


@pytest.mark.parametrize("exact", [False, True])
def test_reduction_and_dummy_fuse_split(exact):
    X = te.placeholder((10,), dtype="int32", name="X")
    k = te.reduce_axis((0, 10))
    Y = te.compute((), lambda: te.sum(X[k], k), name="Y")
    s = te.create_schedule([Y.op])
    axo, axi = s[Y].split(s[Y].fuse(*Y.op.axis), nparts=20)
    b = infer_bound(s, exact=exact)
    assert (int(b[axo].extent), int(b[axi].extent)) == ((1, 1) if exact else (20, 1))
