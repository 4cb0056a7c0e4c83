"""Symbolic shapes end to end: printed as TVM prints them, bound from the arrays at each call."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower


def _chain(n, m=8):
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] + 1, name="C")
    return A, B, C


@pytest.mark.parametrize("exact", [False, True])
def test_a_symbolic_intermediate_is_allocated_symbolically(exact):
    n = te.var("n")
    A, B, C = _chain(n)
    s = te.create_schedule(C.op)
    text = str(lower(s, [A, C], exact=exact))
    assert "allocate B[float32 * (n*8)]" in text
    assert "2147483647" not in text


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("rows", [1, 3, 10])
def test_one_build_runs_on_every_size(exact, rows):
    n = te.var("n")
    A, B, C = _chain(n)
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], xo)
    f = build(s, [A, C], exact=exact)
    a = np.random.default_rng(rows).standard_normal((rows, 8)).astype("float32")
    c = np.full((rows, 8), np.nan, "float32")
    f(a, c)
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_an_attached_region_of_symbolic_extent_allocates_its_bound():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2, name="B")
    C = te.compute((n,), lambda i: B[i] + 1, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], xo)
    assert "allocate B[float32 * 4]" in str(lower(s, [A, C]))


@pytest.mark.parametrize("exact", [False, True])
def test_shape_expressions_bind_their_variable(exact):
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m * 4, n), name="A")
    B = te.placeholder((m * 4, n), name="B")
    C = te.compute(A.shape, lambda i, j: A[i, j] * B[i, j], name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[C].reorder(xo, C.op.axis[1], xi)
    s.cache_write(C, "global")
    a, b = np.ones((12, 5), "float32") * 3, np.arange(60, dtype="float32").reshape(12, 5)
    c = np.full((12, 5), np.nan, "float32")
    build(s, [A, B, C], exact=exact)(a, b, c)
    np.testing.assert_array_equal(c, a * b)
    with pytest.raises(ValueError, match=r"argument 'A' has 10 elements in dimension 0, which is not \(m\*4\)"):
        build(s, [A, B, C])(np.ones((10, 5), "float32"), np.ones((10, 5), "float32"), np.ones((10, 5), "float32"))


def test_disagreeing_shapes_name_the_argument_and_the_dimension():
    n = te.var("n")
    A, B, C = _chain(n)
    f = build(te.create_schedule(C.op), [A, C])
    with pytest.raises(ValueError, match=r"argument 'C' has 4 elements in dimension 0, but the tensor has n = 3 "
                                         r"there \(n from dimension 0 of argument 'A'\)"):
        f(np.ones((3, 8), "float32"), np.ones((4, 8), "float32"))
    with pytest.raises(ValueError, match=r"argument 'A' has shape \(3, 9\); the tensor's shape is \(n, 8\)"):
        f(np.ones((3, 9), "float32"), np.ones((3, 8), "float32"))
    with pytest.raises(ValueError, match="argument 'A' has 1 dimensions, but the tensor has 2"):
        f(np.ones(3, "float32"), np.ones((3, 8), "float32"))


def test_scalar_variables_may_be_arguments():
    n, k = te.var("n"), te.var("k")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * k, name="B")
    f = build(te.create_schedule(B.op), [A, k, B])
    a, b = np.arange(5, dtype="float32"), np.full(5, np.nan, "float32")
    f(a, 3, b)
    np.testing.assert_array_equal(b, a * 3)
    with pytest.raises(TypeError, match="argument 'k' is a scalar variable; pass an integer"):
        f(a, 2.5, b)


def test_a_symbolic_split_factor_is_a_scalar_argument():
    n, factor = te.var("n"), te.var("factor")
    A, B, C = _chain(n)
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=factor)
    f = build(s, [A, C, factor], exact=False)
    a, c = np.ones((7, 8), "float32"), np.full((7, 8), np.nan, "float32")
    f(a, c, 3)
    np.testing.assert_array_equal(c, a * 2 + 1)
    with pytest.raises(ValueError, match="stage 'C' uses the variable 'factor'"):
        build(s, [A, C])


def test_a_stray_variable_is_refused_naming_it_and_the_stage():
    A = te.placeholder((4,), name="A")
    v = te.var("v")
    B = te.compute((4,), lambda i: A[i] + v, name="B")
    s = te.create_schedule(B.op)
    assert "(A[i] + float32(v))" in str(lower(s, [A, B]))  # lower prints it, as TVM does
    with pytest.raises(ValueError, match="stage 'B' uses the variable 'v'"):
        build(s, [A, B])


def test_buffers_of_two_to_the_31_elements_or_more_index_in_int64():
    A = te.placeholder((50000, 50000), name="A")
    B = te.compute((50000, 50000), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((50000, 50000), lambda i, j: B[i, j] * 2, name="C")
    text = str(lower(te.create_schedule(C.op), [A, C]))
    assert "allocate B[float32 * (int64)2500000000]" in text
    assert "B[((int64(i)*(int64)50000) + int64(j))]" in text
    small = te.placeholder((4, 5), name="S")
    assert "int64" not in str(lower(te.create_schedule(te.compute((4, 5), lambda i, j: small[i, j]).op), [small]))


@pytest.mark.parametrize("exact", [False, True])
def test_a_region_that_grows_with_its_loop_allocates_in_shape_variables(exact):
    """Rows 0..i of T1 are read at row i: the allocation is bounded by n, not by n's int32 range
    (found by the symbolic property test as a MemoryError)."""
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    T1 = te.compute((n, m), lambda i, j: A[i, j] * 2.0 + 1.0, name="T1")
    T3 = te.compute((n, m), lambda i, j: T1[i, 0] + T1[0, j], name="T3")
    s = te.create_schedule(T3.op)
    jo, ji = s[T3].split(T3.op.axis[1], nparts=3)
    s[T1].compute_at(s[T3], s[T3].fuse(T3.op.axis[0], jo))
    allocation = str(lower(s, [A, T3], exact=exact)).splitlines()[1]
    assert "715827883" not in allocation and "n" in allocation
    a = np.arange(12, dtype="float32").reshape(4, 3)
    t3 = np.full((4, 3), np.nan, "float32")
    build(s, [A, T3], exact=exact)(a, t3)
    t1 = a * 2 + 1
    np.testing.assert_array_equal(t3, t1[:, :1] + t1[:1, :])
