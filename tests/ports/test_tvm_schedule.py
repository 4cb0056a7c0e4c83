"""The scenarios of TVM's test_te_schedule.py, written anew: the primitives' effect on the
stage, then a build equal to NumPy.

Not ported: JSON and pickle round trips, rfactor and tensor intrinsics (features we do not
have). Where TVM raises a bare error we raise a ScheduleError naming the problem.
"""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import For, lower

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])


def schedule_create():
    """TVM's test_schedule_create: a shared stage at a split of a split, reordered."""
    m, n, l = te.size_var("m"), te.size_var("n"), te.size_var("l")
    A = te.placeholder((m, l), name="A")
    B = te.placeholder((n, l), name="B")
    AA = te.compute((m, l), lambda i, j: A[i, j], name="AA")
    T = te.compute((m, n, l), lambda i, j, k: AA(i, k) * B(j, k), name="T")
    s = te.create_schedule(T.op)
    s[AA].set_scope("shared")
    _, xi = s[T].split(T.op.axis[0], factor=10)
    xi1, xi2 = s[T].split(xi, factor=2)
    s[AA].compute_at(s[T], xi1)
    s[AA].split(AA.op.axis[0], factor=10)
    s[T].reorder(xi2, xi1)
    return s, A, B, T


@BOTH
def test_schedule_create(exact):
    s, A, B, T = schedule_create()
    assert T.op.axis[1] in s[T].leaf_iter_vars
    a, b = random((13, 3), seed=1), random((2, 3), seed=2)
    (t,) = run(s, [A, B, T], [a, b], exact)
    np.testing.assert_array_equal(t, a[:, None, :] * b[None, :, :])


@BOTH
def test_reorder(exact):
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")
    T = te.compute(m - 1, lambda i: A[i + 1], name="T")
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    xi1, xi2 = s[T].split(xi, factor=2)
    order = (xi2, xi1, xo)
    assert tuple(s[T].leaf_iter_vars) != order
    s[T].reorder(*order)
    assert tuple(s[T].leaf_iter_vars) == order
    with pytest.raises(te.ScheduleError, match="appears more than once"):
        s[T].reorder(xi2, xi1, xi2)
    a = random((26,))
    (t,) = run(s, [A, T], [a], exact)
    np.testing.assert_array_equal(t, a[1:])


@BOTH
@pytest.mark.parametrize("primitive", ["split", "tile", "fuse", "fuse_with_split"])
def test_split_tile_fuse(primitive, exact):
    m, n = te.size_var("m"), te.size_var("n")
    A = te.placeholder((m, n), name="A")
    T = te.compute((m, n), lambda i, j: A[i, j], name="T")
    s = te.create_schedule(T.op)
    if primitive == "split":
        xo, xi = s[T].split(T.op.axis[0], factor=10)
        assert tuple(s[T].leaf_iter_vars) == (xo, xi, T.op.axis[1])
    elif primitive == "tile":
        xo, yo, xi, yi = s[T].tile(T.op.axis[0], T.op.axis[1], x_factor=10, y_factor=5)
        assert tuple(s[T].leaf_iter_vars) == (xo, yo, xi, yi)
    elif primitive == "fuse":
        xo, yo, xi, yi = s[T].tile(T.op.axis[0], T.op.axis[1], x_factor=10, y_factor=5)
        fused = s[T].fuse(xo, yo)
        assert any(isinstance(r, te.Fuse) for r in s[T].relations)
        assert tuple(s[T].leaf_iter_vars) == (fused, xi, yi)
    else:
        xo, xi = s[T].split(T.op.axis[0], factor=10)
        fused = s[T].fuse(xi, T.op.axis[1])
        assert tuple(s[T].leaf_iter_vars) == (xo, fused)
    a = random((23, 7))
    (t,) = run(s, [A, T], [a], exact)
    np.testing.assert_array_equal(t, a)


def test_fuse_with_out_of_order_axes_is_refused():
    m, n = te.size_var("m"), te.size_var("n")
    A = te.placeholder((m, n), name="A")
    T = te.compute((m, n), lambda i, j: A[i, j], name="T")
    s = te.create_schedule(T.op)
    y = T.op.axis[1]
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    with pytest.raises(te.ScheduleError, match="is not next to 'i.outer'"):
        s[T].fuse(xo, y)
    s[T].reorder(y, xo, xi)
    with pytest.raises(te.ScheduleError, match="is not next to 'j'"):
        s[T].fuse(y, xi)
    fused = s[T].fuse(y, xo)  # adjacent after the reorder
    assert s[T].leaf_iter_vars == [fused, xi]


@BOTH
def test_singleton(exact):
    A = te.placeholder((), name="A")
    T = te.compute((), lambda: A() + 1, name="T")
    s = te.create_schedule(T.op)
    fused = s[T].fuse()
    assert any(isinstance(r, te.Singleton) for r in s[T].relations)
    assert tuple(s[T].leaf_iter_vars) == (fused,)
    (t,) = run(s, [A, T], [np.array(41, "float32")], exact)
    assert t.shape == () and float(t) == 42


@BOTH
def test_vectorize_and_unroll(exact):
    m, n = te.size_var("m"), te.size_var("n")
    A = te.placeholder((m, n), name="A")
    T = te.compute((m, n), lambda i, j: A[i, j], name="T")
    s = te.create_schedule(T.op)
    xo, yo, xi, yi = s[T].tile(T.op.axis[0], T.op.axis[1], x_factor=10, y_factor=5)
    s[T].vectorize(yi)
    s[T].unroll(xi)
    assert s[T].iter_var_attrs[xi].iter_type == te.IterVarType.Unrolled
    assert s[T].iter_var_attrs[yi].iter_type == te.IterVarType.Vectorized
    text = str(lower(s, [A, T], exact=exact))
    assert "vectorized (j.inner" in text
    if exact:  # the tail makes the extent symbolic: the loop stays, marked for the compiler
        assert "unrolled (i.inner" in text
    else:  # TVM's UnrollLoop writes the ten iterations out
        assert "i.inner" not in text and text.count("vectorized (j.inner") == 10
    a = random((12, 11))
    (t,) = run(s, [A, T], [a], exact)
    np.testing.assert_array_equal(t, a)


def test_vectorizing_a_reduction_axis_is_refused():
    V = te.placeholder((128,), name="V")
    ax = te.reduce_axis((0, 128), name="ax")
    O = te.compute((1,), lambda _: te.sum(V[ax], axis=[ax]), name="O")
    s = te.create_schedule(O.op)
    with pytest.raises(te.ScheduleError, match="a reduction axis cannot be vectorized"):
        s[O].vectorize(ax)


@BOTH
def test_pragma(exact):
    A = te.placeholder((100,), name="A")
    T = te.compute((100,), lambda i: A[i], name="T")
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    s[T].pragma(xo, "pragma1")
    s[T].pragma(xi, "vectorize")
    assert s[T].iter_var_attrs[xo].pragma_keys[0] == "pragma1"
    assert s[T].iter_var_attrs[xi].iter_type == te.IterVarType.Vectorized
    a = random((100,))
    (t,) = run(s, [A, T], [a], exact)
    np.testing.assert_array_equal(t, a)


@BOTH
def test_legalize_invalid_attach(exact):
    A = te.compute((10, 10), lambda i, j: te.const(1.0), name="A")
    B = te.compute((10, 10), lambda i, j: A[i][j] + i, name="B")
    # Case 1: the axis a stage is attached at is split afterwards.
    s = te.create_schedule([B.op])
    s[A].compute_at(s[B], B.op.axis[1])
    s[B].split(B.op.axis[1], 2)
    text = str(lower(s, [A, B], exact=exact))  # A moves to the inner part of the split
    assert text.index("for (j.inner, 0, 2)") < text.index("produce A")
    a, b = run(s, [A, B], [], exact)
    np.testing.assert_array_equal(b, 1 + np.arange(10)[:, None] * np.ones((1, 10)))
    # Case 2: it is fused afterwards.
    s = te.create_schedule([B.op])
    s[A].compute_at(s[B], B.op.axis[1])
    s[B].fuse(B.op.axis[0], B.op.axis[1])
    body = lower(s, [A, B], exact=exact).body.body  # produce B { for (i.j.fused) { produce A ...
    assert isinstance(body, For) and body.loop_var.name == "i.j.fused"
    a, b = run(s, [A, B], [], exact)
    np.testing.assert_array_equal(b, 1 + np.arange(10)[:, None] * np.ones((1, 10)))


def test_compute_at_itself_or_in_a_loop_is_refused():
    shape = (16, 16)
    A = te.compute(shape, lambda *i: te.const(1.0), name="A")
    B = te.compute(shape, lambda *i: te.const(2.0), name="B")
    C = te.compute(shape, lambda *i: A(*i) + B(*i), name="C")
    s = te.create_schedule(C.op)
    with pytest.raises(te.ScheduleError, match="a stage cannot be computed inside its own loops"):
        s[C].compute_at(s[C], C.op.axis[0])
    s[A].compute_at(s[C], C.op.axis[0])
    with pytest.raises(te.ScheduleError, match="is an output of the schedule"):
        s[C].compute_at(s[A], A.op.axis[0])  # TVM finds the loop only when lowering
    assert s[C].attach_type == te.AttachType.GroupRoot
    (c,) = run(s, [C], [], exact=True)
    np.testing.assert_array_equal(c, np.full(shape, 3.0))
