"""LoopPartition (TVM's pass and its te-based tests, written anew): guarded loops are cut into a
main part without the guard and a part that keeps it, when a PassContext asks; partitioned
schedules build equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from lower.ir.stmt import For, IfThenElse, SeqStmt
from lower.ir.stmt_functor import walk
from schedule.base.pass_context import PassContext

from .test_hoist_if import _conv_tiled

PARTITION = {"tir.LoopPartition": {}}
CONST = {"tir.LoopPartition": {"partition_const_loop": True}}


def _has_if(s) -> bool:
    return any(isinstance(x, IfThenElse) for x in walk(s))


def _add():
    n = te.size_var("n")
    A, B = te.placeholder((n,), name="A"), te.placeholder((n,), name="B")
    T = te.compute((n,), lambda i: A[i] + B[i], name="T")
    s = te.create_schedule(T.op)
    s[T].split(T.op.axis[0], factor=4)
    return s, A, B, T


def test_basic_symbolic_split():
    s, A, B, T = _add()
    with PassContext(config=PARTITION):
        body = lower(s, [A, B, T], exact=False).body.body  # produce T { main; tail }
        f = build(s, [A, B, T], exact=False)
    assert isinstance(body, SeqStmt) and len(body.seq) == 2
    assert not _has_if(body.seq[0]) and _has_if(body.seq[1])
    for n in (1, 8, 10):
        a, b = np.arange(n, dtype="float32"), np.ones(n, "float32")
        t = np.full(n, np.nan, "float32")
        f(a, b, t)
        np.testing.assert_array_equal(t, a + b)


def test_nothing_is_partitioned_unless_asked():
    s, A, B, T = _add()
    text = str(lower(s, [A, B, T], exact=False))
    assert text.count("for (i.outer") == 1 and "if (likely(" in text
    a, b = np.arange(10, dtype="float32"), np.ones(10, "float32")
    t = np.full(10, np.nan, "float32")
    build(s, [A, B, T], exact=False)(a, b, t)
    np.testing.assert_array_equal(t, a + b)
    with PassContext(config=PARTITION):  # a loop of constant extent needs partition_const_loop
        A2 = te.placeholder((18,), name="A")
        T2 = te.compute((18,), lambda i: A2[i] * 2, name="T")
        s2 = te.create_schedule(T2.op)
        s2[T2].split(T2.op.axis[0], factor=4)
        text2 = str(lower(s2, [A2, T2], exact=False))  # whole, its guard kept (the likely tag gone, as TVM's)
        assert text2.count("for (i.outer") == 1 and "if ((((i.outer*4) + i.inner) < 18))" in text2
        f2 = build(s2, [A2, T2], exact=False)
    a2, t2 = np.arange(18, dtype="float32"), np.full(18, np.nan, "float32")
    f2(a2, t2)
    np.testing.assert_array_equal(t2, a2 * 2)


def test_const_loop():
    A = te.placeholder((21,), name="A")
    T = te.compute((21,), lambda i: A[i] * 2, name="T")
    s = te.create_schedule(T.op)
    s[T].split(T.op.axis[0], factor=4)
    with PassContext(config=CONST):
        body = lower(s, [A, T], exact=False).body
        f = build(s, [A, T], exact=False)
    assert not _has_if(body)
    a = np.arange(21, dtype="float32")
    t = np.full(21, np.nan, "float32")
    f(a, t)
    np.testing.assert_array_equal(t, a * 2)


def test_multi_likely():
    A = te.placeholder((13, 11), name="A")
    T = te.compute((13, 11), lambda i, j: A[i, j] + 1, name="T")
    s = te.create_schedule(T.op)
    s[T].tile(T.op.axis[0], T.op.axis[1], 4, 3)
    with PassContext(config=CONST):
        body = lower(s, [A, T], exact=False).body
        f = build(s, [A, T], exact=False)
    assert not _has_if(body)
    a = np.arange(143, dtype="float32").reshape(13, 11)
    t = np.full((13, 11), np.nan, "float32")
    f(a, t)
    np.testing.assert_array_equal(t, a + 1)


def test_conv_tiling():
    s, data, kernel, conv = _conv_tiled(2, 20)
    with PassContext(config=CONST):
        body = lower(s, [data, kernel, conv], exact=False).body
        f = build(s, [data, kernel, conv], exact=False)
    assert not _has_if(body)
    assert sum(1 for x in _loops(body) if x.loop_var.name == "ic") > 1  # the reduction is in each part
    rng = np.random.default_rng(2)
    d, k = rng.integers(-3, 4, (1, 2, 20, 20)).astype("float32"), rng.integers(-3, 4, (3, 3, 2, 4)).astype("float32")
    out = np.full((1, 4, 18, 18), np.nan, "float32")
    f(d, k, out)
    windows = np.lib.stride_tricks.sliding_window_view(d[0], (3, 3), axis=(1, 2))
    np.testing.assert_array_equal(out[0], np.einsum("chwij,ijco->ohw", windows, k))


def _loops(s):
    return [x for x in walk(s) if isinstance(x, For)]


@pytest.mark.parametrize("config", [{"tir.LoopPartition": {"no_such": 1}}, {"tir.LoopPartition": 3}])
def test_bad_options_are_refused(config):
    with pytest.raises(ValueError, match="PassContext"):
        PassContext(config=config)


def test_thread_axis():
    """TVM's thread_axis case: the loop around a thread-bound split is cut, the thread index
    taking its whole range in the test."""
    m, l = te.size_var("m"), te.size_var("l")
    A = te.placeholder((m, l), name="A")
    B = te.compute((m, l), lambda i, j: A[i, j] + 3, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], 32)
    xi0, _ = s[B].split(xi, nparts=16)
    s[B].bind(xi0, te.thread_axis("threadIdx.x"))
    with PassContext(config=PARTITION):
        body = lower(s, [A, B], exact=False).body.body
        f = build(s, [A, B], exact=False)
    assert isinstance(body, SeqStmt) and not _has_if(body.seq[0]) and _has_if(body.seq[1])
    for n in (5, 40, 70):
        a = np.arange(n * 3, dtype="float32").reshape(n, 3)
        b = np.full((n, 3), np.nan, "float32")
        f(a, b)
        np.testing.assert_array_equal(b, a + 3)


@pytest.mark.parametrize("exact", [False, True])
def test_vectorize_under_a_block_index(exact):
    """TVM's vectorize case: the block index is cut into a branch whose vectorized loop has no
    guard and a branch that keeps it; the condition tests blockIdx.x, not the vector lane. Exact
    mode has no guard to cut: its vector loop runs min(4, ...) lanes."""
    n = te.size_var("n")
    A, B = te.placeholder((n,), name="A"), te.placeholder((n,), name="B")
    bias, scale = te.size_var("bias", dtype="float32"), te.size_var("scale", dtype="float32")
    C = te.compute(A.shape, lambda *i: A(*i) + B(*i) * scale + bias, name="C")
    s = te.create_schedule(C.op)
    bx, x = s[C].split(C.op.axis[0], factor=128)
    tx, x = s[C].split(x, nparts=32)
    _, x = s[C].split(x, factor=4)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[C].vectorize(x)
    with PassContext(config=PARTITION):
        body = lower(s, [A, B, C, bias, scale], exact=exact).body.body
        f = build(s, [A, B, C, bias, scale], exact=exact)
    branch = body.body  # inside the blockIdx.x attribute
    if exact:
        assert not _has_if(body) and "vectorized (i0.inner.inner.inner, 0, min(4, " in str(body)
    else:
        _check_cut(branch, x)
    for m in (5, 128, 300):
        a, b = np.arange(m, dtype="float32"), np.linspace(-1, 1, m).astype("float32")
        c = np.full(m, np.nan, "float32")
        f(a, b, c, 1.5, 2.0)
        np.testing.assert_allclose(c, a + b * 2 + 1.5, rtol=1e-6)


def _check_cut(branch, x):
    assert isinstance(branch, IfThenElse) and "blockIdx.x" in str(branch.condition)
    assert x.var.name not in str(branch.condition)
    assert not _has_if(branch.then_case) and _has_if(branch.else_case)
    assert any(isinstance(y, For) and y.kind.value == "vectorized" for y in walk(branch.then_case))


def test_thread_indices_of_a_block_are_not_cut():
    """A cut over threadIdx.x would put a barrier of the block under a condition: left alone."""
    n = te.size_var("n")
    A = te.placeholder((n,), name="A")
    C = te.compute(A.shape, lambda i: A[i] * 2, name="C")
    s = te.create_schedule(C.op)
    tx, x = s[C].split(C.op.axis[0], nparts=32)
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    with PassContext(config=PARTITION):
        text = str(lower(s, [A, C], exact=False))
        f = build(s, [A, C], exact=False)
    assert "if (likely((threadIdx.x <" not in text
    a = np.arange(70, dtype="float32")
    c = np.full(70, np.nan, "float32")
    f(a, c)
    np.testing.assert_array_equal(c, a * 2)


def _count(s, kind):
    return sum(1 for x in walk(s) if isinstance(x, kind))


def _tvm_options(**extra):
    return {"tir.LoopPartition": {"partition_const_loop": True, **extra}}


def test_a_piece_of_one_iteration_is_its_body_unless_asked():
    """TVM's no_unroll_loop case: 21 = 5 * 4 + 1; the last tile's loop and the tail's loop run
    once. By default they become their bodies; ``no_unroll_loop_with_extent_one`` keeps them
    (4 loops, as TVM's test counts), and the guard the tail does not need is gone."""
    A, B = te.placeholder((21,), name="A"), te.placeholder((21,), name="B")
    T = te.compute((21,), lambda i: A[i] + B[i], name="T")
    s = te.create_schedule(T.op)
    s[T].split(T.op.axis[0], factor=4)
    counts = {}
    for keep in (False, True):
        with PassContext(config=_tvm_options(no_unroll_loop_with_extent_one=keep)):
            body = lower(s, [A, B, T], exact=False).body
            f = build(s, [A, B, T], exact=False)
        counts[keep] = _count(body, For)
        assert not _has_if(body)
        a, b = np.arange(21, dtype="float32"), np.ones(21, "float32")
        t = np.full(21, np.nan, "float32")
        f(a, b, t)
        np.testing.assert_array_equal(t, a + b)
    assert counts == {False: 2, True: 4}


def test_multilevel_splitting_with_indivisible_factors():
    """TVM's case: relu over 130 = 2 x 16 x 8 (split twice, the inner loop unrolled). The first
    tile of 128 runs without guards, the last 2 elements as 2 unrolled copies: 10 max in all."""
    import topi
    from schedule.ir.expr import Max

    A = te.placeholder((130,), name="A")
    B = topi.nn.relu(A)
    s = te.create_schedule(B.op)
    yo, yi = s[B].split(B.op.axis[0], factor=8)
    yoo, yoi = s[B].split(yo, factor=16)
    s[B].reorder(yoo, yoi, yi)
    s[B].unroll(yi)
    with PassContext(config=_tvm_options()):
        body = lower(s, [A, B], exact=False).body
        f = build(s, [A, B], exact=False)
    maxima = []
    from lower.ir.stmt_functor import post_order_visit
    post_order_visit(body, lambda x: maxima.append(x) if isinstance(x, Max) else None)
    assert len(maxima) == 10 and not _has_if(body)
    a = np.linspace(-1, 1, 130).astype("float32")
    b = np.full(130, np.nan, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, np.maximum(a, 0))


def test_double_splitting_with_indivisible_factors():
    """TVM's case: C (split by 10) computed at D's tiles of 32 over 48 elements: every guard is
    cut away (the tail of each tile, and the tiles of C past 48)."""
    A = te.placeholder((48,), name="A")
    C = te.compute((48,), lambda i: A[i], name="C")
    D = te.compute((48,), lambda i: C[i], name="D")
    s = te.create_schedule(D.op)
    s[C].split(C.op.axis[0], factor=10)
    do, _ = s[D].split(D.op.axis[0], 32)
    s[C].compute_at(s[D], do)
    with PassContext(config=_tvm_options()):
        body = lower(s, [A, C, D], exact=False).body
        f = build(s, [A, C, D], exact=False)
    assert not _has_if(body)
    a = np.arange(48, dtype="float32")
    c, d = np.full(48, np.nan, "float32"), np.full(48, np.nan, "float32")
    f(a, c, d)
    np.testing.assert_array_equal(c, a)
    np.testing.assert_array_equal(d, a)


def test_simple_rfactor():
    """TVM's case: a sum of 68 factored by 16 (5 parts, the last of 4): partitioning changes the
    factored stage (the tail part loses its guard)."""
    A = te.placeholder((1, 68), name="A")
    k = te.reduce_axis((0, 68), "k")
    B = te.compute((1,), lambda b: te.sum(A[b, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, _ = s[B].split(s[B].op.reduce_axis[0], 16)
    s.rfactor(B, ko, 0)
    before = str(lower(s, [A, B], exact=False))
    with PassContext(config=_tvm_options()):
        after = lower(s, [A, B], exact=False)
        f = build(s, [A, B], exact=False)
    assert "if (" in before and "if (" not in str(after) and str(after) != before
    a = np.arange(68, dtype="float32").reshape(1, 68)
    b = np.full(1, np.nan, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, a.sum(axis=1))


def test_explicit_partition_hint():
    """TVM's case: ``pragma(axis, "loop_partition_hint")`` cuts a loop on a plain
    ``if_then_else`` (no likely tag): a concatenation becomes two loops of 16 without a test.
    (TVM's test reads ``B[i]`` for i in [16, 32) of a B of 16, past its end: here ``B[i - 16]``.)"""
    A, B = te.placeholder((16,), name="A"), te.placeholder((16,), name="B")
    C = te.compute((32,), lambda i: te.if_then_else(i < 16, A[i], B[i - 16]), name="C")
    s = te.create_schedule(C.op)
    s[C].pragma(s[C].op.axis[0], "loop_partition_hint", True)
    with PassContext(config=_tvm_options()):
        body = lower(s, [A, B, C], exact=False).body
        f = build(s, [A, B, C], exact=False)
    loops = _loops(body)
    assert [int(x.extent) for x in loops] == [16, 16] and "if_then_else" not in str(body)
    assert "C[(i + 16)] = B[i]" in str(body) and "loop_partition_hint" not in str(body)
    a, b = np.arange(16, dtype="float32"), -np.arange(16, dtype="float32")
    c = np.full(32, np.nan, "float32")
    f(a, b, c)
    np.testing.assert_array_equal(c, np.concatenate([a, b]))
    with PassContext(config=_tvm_options()):  # without the hint the test stays
        s2 = te.create_schedule(C.op)
        assert "if_then_else" in str(lower(s2, [A, B, C], exact=False))


def test_a_hinted_loop_with_no_interval_is_unrolled_when_asked():
    A = te.placeholder((8,), name="A")
    C = te.compute((8,), lambda i: te.if_then_else(A[i] > 0, A[i], 0.0), name="C")  # a test on data
    s = te.create_schedule(C.op)
    s[C].pragma(s[C].op.axis[0], "loop_partition_hint", True)
    with PassContext(config=_tvm_options(unroll_loop_with_partition_hint_no_interval=True)):
        text = str(lower(s, [A, C], exact=False))
        f = build(s, [A, C], exact=False)
    assert "for (" not in text and text.count("C[") == 8  # unrolled
    a = np.linspace(-1, 1, 8).astype("float32")
    c = np.full(8, np.nan, "float32")
    f(a, c)
    np.testing.assert_array_equal(c, np.maximum(a, 0))
