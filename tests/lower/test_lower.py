"""Lowering beyond the document's listings: split tails, reductions, threads, errors, execution."""

from __future__ import annotations

import re

import numpy as np
import pytest

import schedule as te
from lower import (
    Buffer,
    For,
    ForKind,
    Load,
    LoweringError,
    OutOfBoundsError,
    Store,
    build,
    lower,
    reference,
)
from lower.backend import compile_source, python_source


def squeeze(text):
    return re.sub(r"\s+", "", str(text))


def split_tail():
    A = te.placeholder((20,), name="A")
    B = te.compute((20,), lambda i: A[i] + 1, name="B")
    C = te.compute((20,), lambda i: B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(C.op.axis[0], factor=16)
    s[B].compute_at(s[C], xo)
    return A, C, s


def test_split_tail_is_guarded_faithfully():
    A, C, s = split_tail()
    text = squeeze(lower(s, [A, C], exact=False))
    assert "for(i.inner,0,16){if(likely((((i.outer*16)+i.inner)<20))){" in text
    assert "allocateB[float32*16]" in text


def test_split_tail_loop_is_shortened_exactly():
    A, C, s = split_tail()
    text = squeeze(lower(s, [A, C], exact=True))
    assert "for(i.inner,0,min(16,(20-(i.outer*16)))){C[((i.outer*16)+i.inner)]" in text
    assert "for(i,0,select((i.outer==1),4,16)){B[i]" in text
    assert "likely" not in text


@pytest.mark.parametrize("exact", [False, True])
def test_split_tail_runs_correctly(exact):
    A, C, s = split_tail()
    a = np.arange(20, dtype="float32")
    c = np.zeros(20, "float32")
    build(s, [A, C], exact=exact)(a, c)
    assert np.array_equal(c, (a + 1) * 2)


def test_reduction_is_init_then_update():
    X = te.placeholder((6, 5), name="X")
    k = te.reduce_axis((0, 5), name="k")
    R = te.compute((6,), lambda i: te.sum(X[i, k], axis=k), name="R")
    s = te.create_schedule(R.op)
    assert squeeze(lower(s, [X, R])) == squeeze("""
produce R {
  for (i, 0, 6) {
    R[i] = 0.000000f
    for (k, 0, 5) {
      R[i] = (R[i] + X[((i*5) + k)])
    }
  }
}""")


def test_producer_attached_inside_a_reduction_loop():
    X = te.placeholder((6, 5), name="X")
    P = te.compute((6, 5), lambda i, j: X[i, j] * 2, name="P")
    k = te.reduce_axis((0, 5), name="k")
    R = te.compute((6,), lambda i: te.max(P[i, k], axis=k), name="R")
    s = te.create_schedule(R.op)
    s[P].compute_at(s[R], k)
    x = np.random.default_rng(0).integers(-9, 9, size=(6, 5)).astype("float32")
    for exact in (False, True):
        r = np.zeros(6, "float32")
        build(s, [X, R], exact=exact)(x, r)
        assert np.array_equal(r, (x * 2).max(axis=1))
    assert "allocate P[float32 * 1]" in str(lower(s, [X, R]))


def test_thread_bound_loops_print_as_attributes_and_run():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 3, name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=16)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    text = str(lower(s, [A, B]))
    assert "// attr [iter_var(blockIdx.x, , blockIdx.x)] thread_extent = 4" in text
    assert "// attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = 16" in text
    assert "B[((blockIdx.x*16) + threadIdx.x)] = (A[((blockIdx.x*16) + threadIdx.x)]*3.000000f)" in text
    a, b = np.arange(64, dtype="float32"), np.zeros(64, "float32")
    build(s, [A, B])(a, b)
    assert np.array_equal(b, a * 3)


def test_loop_kinds_print_their_names():
    A = te.placeholder((8, 4), name="A")
    B = te.compute((8, 4), lambda i, j: A[i, j] + 1, name="B")
    s = te.create_schedule(B.op)
    s[B].parallel(B.op.axis[0])
    s[B].vectorize(B.op.axis[1])
    text = str(lower(s, [A, B]))
    assert "parallel (i, 0, 8) {" in text and "vectorized (j, 0, 4) {" in text


def test_multi_output_reduction_updates_from_the_old_values():
    def fcombine(x, y):
        return te.if_then_else(x[1] >= y[1], x[0], y[0]), te.max(x[1], y[1])

    def fidentity(t0, t1):
        return te.const(-1, t0), te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    X = te.placeholder((4, 6), name="X")
    k = te.reduce_axis((0, 6), name="k")
    idx = te.placeholder((4, 6), dtype="int32", name="idx")
    T0, T1 = te.compute((4,), lambda i: argmax((idx[i, k], X[i, k]), axis=k), name="T")
    s = te.create_schedule(T0.op)
    x = np.random.default_rng(1).permutation(24).reshape(4, 6).astype("float32")
    ix = np.tile(np.arange(6, dtype="int32"), (4, 1))
    o0, o1 = np.zeros(4, "int32"), np.zeros(4, "float32")
    build(s, [X, idx, T0, T1])(x, ix, o0, o1)
    assert np.array_equal(o0, x.argmax(axis=1)) and np.array_equal(o1, x.max(axis=1))
    ref = reference([T0, T1], {X: x, idx: ix})
    assert np.array_equal(ref[T0], o0)


def test_an_input_missing_from_the_arguments_is_named():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(LoweringError, match="tensor 'A' is used but neither realized nor an argument"):
        lower(s, [B])


def test_built_functions_check_their_arrays():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    f = build(te.create_schedule(B.op), [A, B])
    a = np.zeros(4, "float32")
    with pytest.raises(TypeError, match="expected 2 arguments"):
        f(a)
    with pytest.raises(ValueError, match=r"argument 'B' has shape \(5,\)"):
        f(a, np.zeros(5, "float32"))
    with pytest.raises(TypeError, match="argument 'A' must be a NumPy array"):
        f([0, 0, 0, 0], a)


def _run(stmt, buffers, arrays):
    fn = compile_source(python_source(stmt, buffers))
    fn(*arrays)


def test_out_of_region_writes_and_negative_reads_are_reported():
    out = Buffer("B", "float32", (te.const(4),))
    src = Buffer("A", "float32", (te.const(4),))
    i = te.var("i")
    write = For(i, te.const(0), te.const(5), ForKind.SERIAL,
                Store(out, te.const(1.0), i, (i, te.const(0), te.const(4))))
    with pytest.raises(OutOfBoundsError, match=r"write of B at index \(4,\).*region is \[0, 4\)"):
        _run(write, [out], [[0.0] * 4])
    read = For(i, te.const(0), te.const(2), ForKind.SERIAL,
               Store(out, Load(src, i - 1, (i - 1, te.const(0), te.const(4))), i, (i, te.const(0), te.const(4))))
    with pytest.raises(OutOfBoundsError, match=r"read of A at index \(-1,\)"):
        _run(read, [src, out], [[0.0] * 4, [0.0] * 4])


def test_a_producer_attached_outside_its_consumers_loops_is_a_lowering_error():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    C = te.compute((8,), lambda i: B[i] * 2, name="C")
    D = te.compute((8,), lambda i: B[i] + C[i], name="D")
    s = te.create_schedule(D.op)
    s[B].compute_at(s[C], C.op.axis[0])   # D reads B too, outside C's loop
    with pytest.raises(LoweringError, match="stage 'B' is attached at 'i', but its consumer 'D'"):
        lower(s, [A, D])


@pytest.mark.parametrize("exact", [False, True])
def test_a_stage_nothing_reads_computes_nothing(exact):
    A = te.placeholder((2, 2), name="A")
    T0 = te.compute((2, 2), lambda i, j: A[i, j] * 2, name="T0")
    T1 = te.compute((2, 2), lambda i, j: T0[i, j] + 1, name="T1")
    T2 = te.compute((2, 2), lambda i, j: te.if_then_else(j + 2 < 2, T1[i, j + 2], te.const(0.0)), name="T2")
    s = te.create_schedule(T2.op)
    s[T1].fuse(T1.op.axis[0], T1.op.axis[1])   # a fuse over an empty region, read by nothing
    a, t2 = np.ones((2, 2), "float32"), np.full((2, 2), 5.0, "float32")
    build(s, [A, T2], exact=exact)(a, t2)
    assert np.array_equal(t2, np.zeros((2, 2), "float32"))


def test_nests_deeper_than_python_allows_continue_in_helpers():
    """Python refuses more than 20 nested blocks; deeper loop nests are split into functions."""
    out = Buffer("B", "float32", (te.const(3),))
    loops = [te.var(f"v{k}") for k in range(24)]
    total = loops[0]
    for v in loops[1:]:
        total = total + v
    body = Store(out, te.const(1.0) + total, total)
    for k, v in reversed(list(enumerate(loops))):
        body = For(v, te.const(0), te.const(3 if k == 0 else 1), ForKind.SERIAL, body)
    source = python_source(body, [out])
    assert "def _nest" in source
    data = [0.0] * 3
    compile_source(source)(data)
    assert data == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("exact", [False, True])
def test_an_inlined_scalar_stage_is_substituted_into_scalar_and_array_readers(exact):
    """A 0-d compute has no index for its reads; inlining must still replace them (it once left
    the read of an unrealized tensor)."""
    P = te.placeholder((5,), name="P")
    A = te.compute((), lambda: P[0] * 2.0, name="A")
    B = te.compute((), lambda: A() + 1.0, name="B")
    C = te.compute((3,), lambda i: B() * i.astype("float32") + A(), name="C")
    s = te.create_schedule(C.op)
    s[A].compute_inline()
    s[B].compute_inline()
    assert "A[" not in str(lower(s, [P, C], exact=exact).body)
    out = np.full(3, np.nan, "float32")
    build(s, [P, C], exact=exact)(np.arange(1, 6, dtype="float32"), out)
    np.testing.assert_array_equal(out, np.arange(3) * 3.0 + 2.0)


@pytest.mark.parametrize("target", ["c", "python"])
def test_float16_arithmetic_rounds_each_result_to_half(target):
    """As NumPy's float16 and the C target's casts back: a product is rounded to half before the
    sum (the Python target once kept it in double and disagreed with C by an ulp)."""
    A = te.placeholder((8,), name="A", dtype="float16")
    k = te.var("k", "float16")
    C = te.compute((8,), lambda i: (A[i] * k + k) / (A[i] - k), name="C")
    a = np.array([-3.05078125, 0.1, 7.3, -0.7, 1000.0, 3.0, 65504.0, -2.5], "float16")
    out = np.zeros(8, "float16")
    build(te.create_schedule(C.op), [A, C, k], target=target)(a, out, 1.5)
    half = np.float16(1.5)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        want = (a * half + half) / (a - half)
    np.testing.assert_array_equal(out, want)
