"""TVM's tensorize tutorial and tensorize unit tests, written anew: intrinsics declared with
``te.decl_tensor_intrin``, the region a tensorized nest covers, the match of the bodies, and
builds that call the intrinsics as registered Python functions; both modes, equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from bound import Analyzer, infer_bound
from bound.inference.tensorize import match_body, tensorize_region
from lower import LoweringError, lower
from lower.backend.python.runtime import OutOfBoundsError
from schedule.ir.functor import structural_equal

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])
FACTOR = 16


def _rows(ptr, stride, rows, cols):
    """The *rows* x *cols* matrix a pointer with row stride *stride* reaches."""
    return np.stack([ptr[r * stride:r * stride + cols] for r in range(rows)])


@te.register_func("test.tz.gemv_update", override=True)
def _gemv_update(cc, aa, bb, m, l, stride):
    cc[:m] = _rows(bb, stride, m, l) @ aa[:l]
    return 0


@te.register_func("test.tz.gemv_reset", override=True)
def _gemv_reset(cc, m):
    cc[:m] = 0
    return 0


@te.register_func("test.tz.gemv_accumulate", override=True)
def _gemv_accumulate(cc, aa, bb, m, l, stride):
    cc[:m] += _rows(bb, stride, m, l) @ aa[:l]
    return 0


@te.register_func("test.tz.vadd", override=True)
def _vadd(x, y, z):
    z[...] = x + y


# ---------------------------------------------------------------- the tutorial (gemv)

def _tutorial_intrin(m, l, split_reduction):
    a = te.placeholder((l,), name="a")
    b = te.placeholder((m, l), name="b")
    k = te.reduce_axis((0, l), name="k")
    c = te.compute((m,), lambda i: te.sum(a[k] * b[i, k], axis=k), name="c")
    Ab = te.decl_buffer(a.shape, a.dtype, name="A", offset_factor=1, strides=[1])
    Bb = te.decl_buffer(b.shape, b.dtype, name="B", offset_factor=1, strides=[te.var("s1"), 1])
    Cb = te.decl_buffer(c.shape, c.dtype, name="C", offset_factor=1, strides=[1])

    def intrin_func(ins, outs):
        aa, bb = ins
        cc = outs[0]

        def call(name):
            ib = te.ir_builder.create()
            ib.emit(te.call_extern("int32", name, cc.access_ptr("w"), aa.access_ptr("r"), bb.access_ptr("r"),
                                   m, l, bb.strides[0]))
            return ib.get()
        if not split_reduction:
            return call("test.tz.gemv_update")
        reset = te.ir_builder.create()
        reset.emit(te.call_extern("int32", "test.tz.gemv_reset", cc.access_ptr("w"), m))
        return call("test.tz.gemv_update"), reset.get(), call("test.tz.gemv_accumulate")
    return te.decl_tensor_intrin(c.op, intrin_func, binds={a: Ab, b: Bb, c: Cb})


def _tutorial_matmul(N=32, M=32, L=32):
    A = te.placeholder((N, L), name="A")
    B = te.placeholder((M, L), name="B")
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    return A, B, C


@BOTH
def test_tutorial_gemv_replaces_the_inner_loops_with_one_call(exact):
    A, B, C = _tutorial_matmul(N=32, M=32, L=24)
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (z,) = C.op.reduce_axis
    yo, yi = s[C].split(y, factor=FACTOR)
    s[C].reorder(x, yo, yi, z)
    s[C].tensorize(yi, _tutorial_intrin(FACTOR, 24, split_reduction=False))
    text = str(lower(s, [A, B, C], exact=exact))
    # TVM's listing: one call per (i, j.outer) with pointers at the regions' first elements.
    assert 'call_extern("test.tz.gemv_update", tvm_access_ptr("float32", C, ((i*32) + (j.outer*16)), 16, 2), ' \
           'tvm_access_ptr("float32", A, (i*24), 24, 1), tvm_access_ptr("float32", B, (j.outer*384), 384, 1), ' \
           '16, 24, 24)' in text
    assert "for (j.inner" not in text and "for (k" not in text
    a, b = random((32, 24), seed=1), random((32, 24), seed=2)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-6)


@BOTH
def test_tutorial_gemv_with_reduce_update(exact):
    A, B, C = _tutorial_matmul()
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (z,) = C.op.reduce_axis
    yo, yi = s[C].split(y, factor=FACTOR)
    zo, zi = s[C].split(z, factor=FACTOR)
    s[C].reorder(x, yo, zo, yi, zi)
    s[C].tensorize(yi, _tutorial_intrin(FACTOR, FACTOR, split_reduction=True))
    text = str(lower(s, [A, B, C], exact=exact))
    # The reset runs once per output block, before the loop over the reduction's blocks.
    reset, loop, update = (text.index(x) for x in ("test.tz.gemv_reset", "for (k.outer", "test.tz.gemv_accumulate"))
    assert reset < loop < update and "gemv_update" not in text
    a, b = random((32, 32), seed=3), random((32, 32), seed=4)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-6)


# ---------------------------------------------------------------- unit tests: vadd

def _intrin_vadd(n, xo=None, m=None):
    """TVM's vadd; with the outer loop *xo* of an extent *m* that *n* does not divide, the
    intrinsic computes zero past the end, as a guarded cache does."""
    x = te.placeholder((n,), name="vx")
    y = te.placeholder((n,), name="vy")
    if m is None or m % n == 0:
        z = te.compute(x.shape, lambda i: x[i] + y[i], name="z")
    else:
        z = te.compute(x.shape, lambda i: te.select(xo * n + i < m, x[i] + y[i], te.const(0, x.dtype)), name="z")
    return te.decl_tensor_intrin(z.op, lambda ins, outs: te.call_packed("test.tz.vadd", ins[0], ins[1], outs[0]),
                                 default_buffer_params={"offset_factor": 16})


def _add(m, length=None):
    x = te.placeholder((length or m,), name="x")
    y = te.placeholder((length or m,), name="y")
    z = te.compute((m,), lambda i: x[i] + y[i], name="z")
    return x, y, z


def _same(a, b):
    ana = Analyzer()
    return structural_equal(ana.simplify(a), ana.simplify(b))


@BOTH
def test_vadd_region_match_and_build(exact):
    x, y, z = _add(128)
    s = te.create_schedule(z.op)
    xo, xi = s[z].split(z.op.axis[0], factor=FACTOR)
    vadd = _intrin_vadd(FACTOR)
    s[z].tensorize(xi, vadd)
    ns = s.normalize()
    region = tensorize_region(ns[z], infer_bound(ns, exact=False))
    out = region.out_dom[z.op.axis[0]]
    assert _same(out.extent, te.const(FACTOR)) and _same(out.min, xo.var * FACTOR)
    assert all(_same(r[0].extent, te.const(FACTOR)) for r in region.in_region.values())
    body, _ = match_body(ns[z], infer_bound(ns, exact=False), region)
    assert _same(body[0], vadd.op.body[0])
    a, b = random((128,), seed=1), random((128,), seed=2)
    (c,) = run(s, [x, y, z], [a, b], exact)
    np.testing.assert_array_equal(c, a + b)


@BOTH
def test_vadd_on_a_cache_write_of_a_split_with_a_tail(exact):
    """The cache of a 129-element result has 9 x 16 elements and computes zero past the end,
    which the intrinsic says with a select. Its last call reads 16 elements of each input from
    element 128: inputs of 144 elements hold them; inputs of 129 do not, and the run reports
    the read past the end (TVM's C would read it silently)."""
    for length in (144, 129):
        x, y, z = _add(129, length)
        s = te.create_schedule(z.op)
        s[z].split(z.op.axis[0], factor=FACTOR)
        zg = s.cache_write(z, "global")
        xo, xi = zg.op.axis
        s[zg].tensorize(xi, _intrin_vadd(FACTOR, xo.var, 129))
        ns = s.normalize()
        region = tensorize_region(ns[zg], infer_bound(ns, exact=False))
        # The outer loop is fixed at its variable (the rebased loop's): one point per call.
        out = region.out_dom[xo]
        assert _same(out.extent, te.const(1)) and isinstance(out.min, te.Var) and out.min.name == xo.var.name
        a, b = random((length,), seed=3), random((length,), seed=4)
        if length == 129:
            with pytest.raises(OutOfBoundsError, match="'test.tz.vadd'.* from element 128"):
                run(s, [x, y, z], [a, b], exact)
            continue
        (c,) = run(s, [x, y, z], [a, b], exact)
        np.testing.assert_array_equal(c, (a + b)[:129])


@BOTH
def test_vadd_over_a_whole_axis_with_default_buffers(exact):
    x, y, z = _add(32)
    intrin = te.decl_tensor_intrin(z.op, lambda ins, outs: te.call_packed("test.tz.vadd", ins[0], ins[1], outs[0]))
    s = te.create_schedule(z.op)
    s[z].tensorize(z.op.axis[0], intrin)
    text = str(lower(s, [x, y, z], exact=exact))
    assert 'tvm_call_packed("test.tz.vadd", x, y, z)' in text and "for (" not in text
    a, b = random((32,), seed=5), random((32,), seed=6)
    (c,) = run(s, [x, y, z], [a, b], exact)
    np.testing.assert_array_equal(c, a + b)


@BOTH
def test_a_bound_buffer_prints_as_the_tensor_it_binds(exact):
    """As TVM prints it: the intrinsic's buffer, bound to a slice of X, is X in the call."""
    x, y, z = _add(16)
    intrin = te.decl_tensor_intrin(z.op, lambda ins, outs: te.call_packed("test.tz.vadd", ins[0].data, ins[1],
                                                                          outs[0].data),
                                   default_buffer_params={"offset_factor": 16})
    X, Y = te.placeholder((32,), name="X"), te.placeholder((32,), name="Y")
    Z = te.compute((32,), lambda i: X[i] + Y[i], name="Z")
    s = te.create_schedule(Z.op)
    _, inner = s[Z].split(Z.op.axis[0], factor=16)
    s[Z].tensorize(inner, intrin)
    text = str(lower(s, [X, Y, Z], exact=exact))
    assert 'tvm_call_packed("test.tz.vadd", X, Y, Z)' in text
    a, b = random((32,), seed=7), random((32,), seed=8)
    (c,) = run(s, [X, Y, Z], [a, b], exact)
    np.testing.assert_array_equal(c, a + b)


# ---------------------------------------------------------------- unit tests: gemv in a matmul

def _intrin_gemv(m, n, with_reset=True):
    w = te.placeholder((m, n), name="w")
    x = te.placeholder((n,), name="x")
    k = te.reduce_axis((0, n), name="k")
    z = te.compute((m,), lambda i: te.sum(w[i, k] * x[k], axis=k), name="z")
    Wb = te.decl_buffer(w.shape, w.dtype, name="W", offset_factor=16, strides=[te.var("ldw"), 1])

    def intrin_func(ins, outs):
        ww, xx = ins
        zz = outs[0]
        ww_ptr, xx_ptr, zz_ptr = ww.access_ptr("r"), xx.access_ptr("r"), zz.access_ptr("w")
        body = te.call_packed("test.tz.gemv_update", zz_ptr, xx_ptr, ww_ptr, m, n, ww.strides[0])
        reset = te.call_packed("test.tz.gemv_reset", zz_ptr, m)
        update = te.call_packed("test.tz.gemv_accumulate", zz_ptr, xx_ptr, ww_ptr, m, n, ww.strides[0])
        return body, (reset if with_reset else None), update
    return te.decl_tensor_intrin(z.op, intrin_func, binds={w: Wb},
                                 default_buffer_params={"offset_factor": 16, "data_alignment": 16})


def _matmul(n=64):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(B[j, k] * A[i, k], axis=k), name="C")
    return A, B, C


@pytest.mark.parametrize("case", ["whole", "rfactor", "no_reset", "no_reset_multi"])
@BOTH
def test_gemv_in_a_matmul(case, exact):
    n = 64
    A, B, C = _matmul(n)
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    yo, yi = s[C].split(y, factor=FACTOR)
    if case == "whole":
        gemv = _intrin_gemv(FACTOR, n)
    else:
        ro, ri = s[C].split(C.op.reduce_axis[0], factor=FACTOR)
        if case == "no_reset_multi":
            roo, roi = s[C].split(ro, factor=2)
            s[C].reorder(yo, roo, roi, yi, ri)
        else:
            s[C].reorder(yo, ro, yi, ri)
        gemv = _intrin_gemv(FACTOR, FACTOR, with_reset=case == "rfactor")
    s[C].tensorize(yi, gemv)
    ns = s.normalize()
    bounds = infer_bound(ns, exact=False)
    region = tensorize_region(ns[C], bounds)
    assert _same(region.out_dom[x].extent, te.const(1))
    assert _same(region.out_dom[y].extent, te.const(FACTOR)) and _same(region.out_dom[y].min, yo.var * FACTOR)
    body, _ = match_body(ns[C], bounds, region)
    assert _same(body[0], gemv.op.body[0])
    text = str(lower(s, [A, B, C], exact=exact))
    if case == "rfactor":
        assert "test.tz.gemv_reset" in text
    elif case != "whole":
        assert "if (likely(" in text and "test.tz.gemv_update" in text
    a, b = random((n, n), seed=7), random((n, n), seed=8)
    (c,) = run(s, [A, B, C], [a, b], exact)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-6)


@te.register_func("test.tz.op", override=True)
def _op(xx, zz):
    i, j = np.meshgrid(np.arange(9), np.arange(9), indexing="ij")
    zz[...] = xx[j // 3 + i % 3, j % 3 + i // 3]


@BOTH
def test_tensorize_op_compares_simplified_bodies(exact):
    """TVM issue 696: the bodies are simplified before they are compared."""
    idxd, idxm = te.indexdiv, te.indexmod

    def op_intrin():
        x = te.placeholder((5, 5), name="A")
        y = te.compute((9, 9), lambda i, j: x[idxd(j, 3) + idxm(i, 3), idxm(j, 3) + idxd(i, 3)])
        return te.decl_tensor_intrin(y.op, lambda ins, outs: te.call_packed("test.tz.op", ins[0], outs[0]),
                                     default_buffer_params={"offset_factor": 2})

    A = te.placeholder((5, 5), name="A")
    B = te.compute((9, 9), lambda i, j: A[idxd(j, 3) + idxm(i, 3), idxm(j, 3) + idxd(i, 3)])
    s = te.create_schedule(B.op)
    s[B].tensorize(B.op.axis[0], op_intrin())
    a = random((5, 5), seed=9)
    (b,) = run(s, [A, B], [a], exact)
    i, j = np.meshgrid(np.arange(9), np.arange(9), indexing="ij")
    np.testing.assert_array_equal(b, a[j // 3 + i % 3, j % 3 + i // 3])


# ---------------------------------------------------------------- errors

def test_an_intrinsic_that_computes_something_else_is_refused():
    x, y, z = _add(64)
    vx = te.placeholder((FACTOR,), name="vx")
    vy = te.placeholder((FACTOR,), name="vy")
    vz = te.compute((FACTOR,), lambda i: vx[i] - vy[i], name="vz")
    sub = te.decl_tensor_intrin(vz.op, lambda ins, outs: te.call_packed("test.tz.vadd", ins[0], ins[1], outs[0]))
    s = te.create_schedule(z.op)
    xo, xi = s[z].split(z.op.axis[0], factor=FACTOR)
    s[z].tensorize(xi, sub)
    with pytest.raises(LoweringError, match="computes a different value"):
        lower(s, [x, y, z])


def test_a_region_of_another_shape_is_refused():
    x, y, z = _add(64)
    s = te.create_schedule(z.op)
    xo, xi = s[z].split(z.op.axis[0], factor=8)
    s[z].tensorize(xi, _intrin_vadd(FACTOR))
    with pytest.raises(LoweringError, match="extent 0 is 16, but the region it stands for has 8"):
        lower(s, [x, y, z])


@BOTH
def test_a_split_tail_inside_the_tensorized_scope_is_refused(exact):
    x, y, z = _add(129)
    s = te.create_schedule(z.op)
    xo, xi = s[z].split(z.op.axis[0], factor=FACTOR)
    s[z].tensorize(xi, _intrin_vadd(FACTOR))
    with pytest.raises(LoweringError, match="tensorized scope"):
        lower(s, [x, y, z], exact=exact)


def test_a_thread_inside_the_tensorized_scope_is_refused():
    A, B, C = _matmul(32)
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    yo, yi = s[C].split(y, factor=FACTOR)
    yio, yii = s[C].split(yi, factor=4)
    s[C].bind(yii, te.thread_axis("threadIdx.x"))
    s[C].tensorize(yio, _intrin_gemv(FACTOR, 32))
    with pytest.raises(LoweringError, match="bound to 'threadIdx.x' inside the tensorized scope"):
        lower(s, [A, B, C])


def test_a_reduction_split_needs_the_update():
    A, B, C = _matmul(32)
    w = te.placeholder((FACTOR, FACTOR), name="w")
    xv = te.placeholder((FACTOR,), name="x")
    k = te.reduce_axis((0, FACTOR), name="k")
    zc = te.compute((FACTOR,), lambda i: te.sum(w[i, k] * xv[k], axis=k), name="z")
    only_body = te.decl_tensor_intrin(zc.op, lambda ins, outs: te.call_packed("test.tz.vadd", ins[0], outs[0]))
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    yo, yi = s[C].split(y, factor=FACTOR)
    ro, ri = s[C].split(C.op.reduce_axis[0], factor=FACTOR)
    s[C].reorder(yo, ro, yi, ri)
    s[C].tensorize(yi, only_body)
    with pytest.raises(LoweringError, match="has no update"):
        lower(s, [A, B, C])


def test_tensorize_rejects_bad_arguments_and_leaves_the_stage_unchanged():
    x, y, z = _add(64)
    s = te.create_schedule(z.op)
    xo, xi = s[z].split(z.op.axis[0], factor=FACTOR)
    with pytest.raises(TypeError, match="decl_tensor_intrin"):
        s[z].tensorize(xi, "vadd")
    s[z].tensorize(xi, _intrin_vadd(FACTOR))
    with pytest.raises(te.ScheduleError, match="already is"):
        s[z].tensorize(xo, _intrin_vadd(FACTOR))
    assert s[z].iter_var_attrs.get(xo) is None
    with pytest.raises(te.ScheduleError, match="not a compute"):
        te.decl_tensor_intrin(x.op, lambda ins, outs: None)
    with pytest.raises(TypeError, match="access mask"):
        te.decl_buffer((4,), "float32").access_ptr("x")
