"""NarrowDataType (TVM's pass and its tests, written anew): int64 loops become int32 where their
ranges and every expression they take part in fit, and stay int64 otherwise; narrowed
schedules build equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from lower.ir.stmt import AttrStmt, Buffer, For, ForKind, Load, Store
from lower.passes.narrow_datatype import narrow_datatype

BOTH = pytest.mark.parametrize("exact", [False, True])


def _i64(v):
    return te.const(v, "int64") if isinstance(v, int) else v


def _nest(m, n, index_b=lambda i, j, n: i * n + j, size_b=lambda m, n: m * n):
    """for (i, 0, m) for (j, 0, n) A[i*n + j] = B[index_b] + 1, every index int64."""
    m, n = _i64(m), _i64(n)
    A = Buffer("A", "float32", (m * n,))
    B = Buffer("B", "float32", (size_b(m, n),))
    i, j = te.var("i", "int64"), te.var("j", "int64")
    store = Store(A, Load(B, index_b(i, j, n)) + 1.0, i * n + j)
    return For(i, _i64(0), m, ForKind.SERIAL, For(j, _i64(0), n, ForKind.SERIAL, store))


@pytest.mark.parametrize(("m", "n", "dtype"), [(2, 2, "int32"), (2**16, 2**16, "int64"),
                                               (te.size_var("m", "int64"), te.size_var("n", "int64"), "int64")])
def test_basic(m, n, dtype):
    out = narrow_datatype(_nest(m, n))
    assert out.loop_var.dtype == dtype and out.body.loop_var.dtype == dtype
    if dtype == "int32":
        assert "int64" not in str(out)


@pytest.mark.parametrize(("n", "dtype"), [(2**15, "int32"), (2**15 + 1, "int64")])
def test_slice(n, dtype):
    """B's index may overflow where A's does not: (2**15 * n - 1 + n) * 2 against 2**31 - 1."""
    stmt = _nest(2**15, n, index_b=lambda i, j, n: i * 2 * n + 2 * j, size_b=lambda m, n: m * n * 2)
    out = narrow_datatype(stmt)
    assert out.loop_var.dtype == dtype and out.body.loop_var.dtype == dtype


@pytest.mark.parametrize(("m", "n", "dtype"), [(2, 32, "int32"), (2**30, 32, "int64")])
def test_thread_axis(m, n, dtype):
    A = Buffer("A", "float32", (_i64(m * n),))
    B = Buffer("B", "float32", (_i64(m * n),))
    bx = te.IterVar(None, te.var("blockIdx.x", "int64"), te.IterVarType.ThreadIndex, "blockIdx.x")
    tx = te.IterVar(None, te.var("threadIdx.x", "int64"), te.IterVarType.ThreadIndex, "threadIdx.x")
    index = bx.var * _i64(n) + tx.var
    stmt = AttrStmt(bx, "thread_extent", _i64(m), AttrStmt(tx, "thread_extent", _i64(n),
                                                              Store(B, Load(A, index) + 1.0, index)))
    out = narrow_datatype(stmt)
    assert out.node.var.dtype == dtype and out.body.node.var.dtype == dtype


@BOTH
@pytest.mark.parametrize(("m", "dtype"), [(te.const(64, "int64"), "int32"), (te.const(64, "int32"), "int32"),
                                          (te.var("n", "int64"), "int64")])
def test_reduce(exact, m, dtype):
    A = te.placeholder((m,), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((), lambda *idx: te.sum(A[k], axis=k), name="B")
    s = te.create_schedule(B.op)
    body = lower(s, [A, B], exact=exact).body
    loop = body.body.seq[1]  # produce B { B[0] = 0; for (k ...) }
    assert isinstance(loop, For) and loop.loop_var.dtype == dtype
    a = np.arange(64, dtype="float32")
    b = np.full((), np.nan, "float32")
    build(s, [A, B], exact=exact)(a, b)
    assert float(b) == a.sum()


@BOTH
def test_a_thread_schedule_over_an_int64_shape(exact):
    m = te.const(70, "int64")
    A = te.placeholder((m, 4), name="A")
    C = te.compute((m, 4), lambda i, j: A[i, j] * 3, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], 32)
    s[C].bind(xo, te.thread_axis("blockIdx.x"))
    s[C].bind(xi, te.thread_axis("threadIdx.x"))
    text = str(lower(s, [A, C], exact=exact))
    assert "int64" not in text
    a = np.arange(280, dtype="float32").reshape(70, 4)
    c = np.full((70, 4), np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, a * 3)


@pytest.mark.parametrize(("m", "n", "bits", "dtype"), [(2, 2, 16, "int16"), (2**10, 2**10, 16, "int32"),
                                                       (2, 2, 8, "int8"), (2**4, 2**4, 8, "int16")])
def test_narrowing_to_16_and_8_bits(m, n, bits, dtype):
    """TVM's basic case at 16 bits: int64 loops go to the target width when every index fits (2 x 2),
    else to the narrowest width that holds them (2**10 * 2**10 needs int32)."""
    out = narrow_datatype(_nest(m, n), bits)
    assert out.loop_var.dtype == dtype and out.body.loop_var.dtype == dtype


@pytest.mark.parametrize(("m", "bits", "dtype"), [(te.const(64, "int32"), 16, "int16"),
                                                  (te.const(2**16, "int32"), 16, "int32"),
                                                  (te.const(64, "int64"), 32, "int32")])
def test_reduce_narrowed_by_the_pass(m, bits, dtype):
    """TVM's reduce case through ``tir.transform.NarrowDataType(bits)``; the narrowed function
    still builds and sums."""
    from lower.transform import NarrowDataType

    A = te.placeholder((m,), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((), lambda *idx: te.sum(A[k], axis=k), name="B")
    s = te.create_schedule(B.op)
    func = NarrowDataType(bits)(lower(s, [A, B], exact=False))
    loop = func.body.body.seq[1]
    assert isinstance(loop, For) and loop.loop_var.dtype == dtype
    from lower.build import build_lowered
    a = np.arange(int(m.value), dtype="float32") % 7
    b = np.full((), np.nan, "float32")
    build_lowered(func)(a, b)
    assert float(b) == a.sum()


def test_a_vector_index_keeps_the_width_its_operands_need():
    """TVM's ramp_dtype_consistency: ``i * (2**31 - 1)`` needs int64, so i stays int64 while the
    vector lane is int32; the function builds and computes the products."""
    n, m = te.const(4, "int64"), te.const(2, "int64")
    A = te.compute((n, m), lambda i, j: te.Cast("int64", 2**31 - 1) * i, name="A")
    s = te.create_schedule(A.op)
    s[A].vectorize(A.op.axis[1])
    body = narrow_datatype(lower(s, [A], exact=False).body)
    loop = body.body
    assert loop.loop_var.dtype == "int64" and loop.body.loop_var.dtype == "int32"
    a = np.zeros((4, 2), "int64")
    build(s, [A], exact=False)(a)
    np.testing.assert_array_equal(a, np.repeat(np.arange(4, dtype="int64")[:, None] * (2**31 - 1), 2, axis=1))
