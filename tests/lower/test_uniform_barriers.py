"""Every thread of a block reaches every barrier: exact mode's thread-dependent tails around a
cross-thread reduction or a barrier become predicates (TOPI's CUDA reduction schedule)."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from lower.ir.stmt import AttrStmt, Buffer, Evaluate, For, ForKind, Load, SeqStmt, Store
from lower.passes.thread_sync import barrier
from lower.passes.uniform_barriers import uniform_barriers
from schedule import arith

BOTH = pytest.mark.parametrize("exact", [False, True])


def argmax_reducer():
    def fcombine(x, y):
        pick = x[1] >= y[1]
        return te.if_then_else(pick, x[0], y[0]), te.if_then_else(pick, x[1], y[1])

    return te.comm_reducer(fcombine, lambda t0, t1: (te.const(-1, t0), te.min_value(t1)), name="argmax")


def cuda_reduce(n: int, k_extent: int, index: bool):
    """TOPI's CUDA schedule_reduce (32 x 32 threads): the reduction split by 32 and factored,
    its inner part bound to threadIdx.x, the outputs fused, split by 32 over threadIdx.y and
    blocks, and only thread x == 0 of a valid row storing."""
    A = te.placeholder((n, k_extent), name="A")
    k = te.reduce_axis((0, k_extent), name="k")
    if index:
        T0, _ = te.compute((n,), lambda i: argmax_reducer()((k, A[i, k]), axis=k), name="T")
        out = te.compute((n,), lambda i: T0[i], name="out")
        data_out = T0
    else:
        out = data_out = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="out")
    s = te.create_schedule(out.op)
    bx = te.thread_axis("blockIdx.x")
    tx, ty = te.thread_axis((0, 32), "threadIdx.x"), te.thread_axis((0, 32), "threadIdx.y")
    _, ki = s[data_out].split(s[data_out].fuse(*s[data_out].op.reduce_axis), factor=32)
    rf = s.rfactor(data_out, ki)
    rf = rf[0] if index else rf
    s[data_out].bind(s[data_out].op.reduce_axis[0], tx)
    s[rf].compute_at(s[data_out], s[data_out].op.reduce_axis[0])
    outer, inner = s[out].split(s[out].fuse(*s[out].op.axis), factor=32)
    s[out].bind(inner, ty)
    s[out].bind(outer, bx)
    if index:
        s[data_out].compute_at(s[out], inner)
    s[out].set_store_predicate(te.all(tx.equal(0), outer * 32 + inner < n))
    return s, A, out


@BOTH
@pytest.mark.parametrize("n", [8, 33])
def test_argmax_over_fewer_rows_than_threads(exact, n):
    s, A, out = cuda_reduce(n, 64, index=True)
    text = str(lower(s, [A, out], exact=exact))
    # No loop around the cross-thread reduction whose trip count differs between threads: the
    # rows past the end pass their condition into it instead, as faithful mode (TVM) does.
    assert "select((" not in text.split("tvm_thread_allreduce")[0].split("produce T.repl")[1].split("produce T.rf")[0]
    cond = text.split("tvm_thread_allreduce(")[1].split(", reduce_temp0")[0].split(", ")[-1]
    if n == 8:  # one block
        assert cond == "(threadIdx.y < 8)"
    else:  # faithful: TVM's tail condition; exact: the rows of the last block
        assert cond == ("!((threadIdx.y >= 1) && (blockIdx.x == 1))" if exact else
                        "(((blockIdx.x*32) + threadIdx.y) < 33)")
    a = np.random.default_rng(n).standard_normal((n, 64)).astype("float32")
    o = np.full(n, -7, "int32")
    build(s, [A, out], exact=exact)(a, o)
    np.testing.assert_array_equal(o, a.argmax(axis=1))


@BOTH
@pytest.mark.parametrize(("n", "k"), [(8, 50), (40, 64), (3, 7)])
def test_sum_with_tails_in_rows_and_in_the_reduction(exact, n, k):
    s, A, out = cuda_reduce(n, k, index=False)
    a = np.random.default_rng(k).integers(-4, 5, (n, k)).astype("float32")
    o = np.full(n, np.nan, "float32")
    build(s, [A, out], exact=exact)(a, o)
    np.testing.assert_array_equal(o, a.sum(axis=1))


def test_a_loop_of_thread_dependent_trips_around_a_barrier_runs_the_largest_count():
    ty = te.thread_axis("threadIdx.y")
    L = Buffer("L", "float32", (te.const(8),), "local")
    v = te.var("v")
    extent = arith.select(ty.var >= 3, te.const(0), te.const(2))
    write = Store(L, te.const(1.0), v)
    loop = For(v, te.const(0), extent, ForKind.SERIAL, SeqStmt((write, barrier(), write)))
    text = str(uniform_barriers(AttrStmt(ty, "thread_extent", te.const(4), loop)))
    assert "for (v, 0, 2) {" in text and text.count("if ((threadIdx.y < 3)) {") == 2
    assert text.count('tvm_storage_sync("shared")') == 1
    # The barrier is outside every condition.
    assert text.index('tvm_storage_sync("shared")') > text.index("}\n")


def test_statements_without_barriers_are_left_alone():
    ty = te.thread_axis("threadIdx.y")
    S = Buffer("S", "float32", (te.const(8),), "local")
    v = te.var("v")
    loop = For(v, te.const(0), arith.select(ty.var >= 3, te.const(0), te.const(2)), ForKind.SERIAL, Store(S, te.const(1.0), v))
    stmt = AttrStmt(ty, "thread_extent", te.const(4), loop)
    assert uniform_barriers(stmt) is stmt
    plain = Evaluate(te.const(0))
    assert uniform_barriers(plain) is plain


def test_stores_into_shared_memory_stay_cooperative():
    """A thread with no work of its own in a tail still does its part of a cooperative fetch:
    its stores into shared memory run unguarded, its own (local) work under the predicate."""
    ty = te.thread_axis("threadIdx.y")
    S = Buffer("S", "float32", (te.const(8),), "shared")
    L = Buffer("L", "float32", (te.const(2),), "local")
    v = te.var("v")
    fetch = Store(S, te.const(1.0), v * 4 + ty.var)
    own = Store(L, Load(S, v * 4 + 3 - ty.var), v)
    extent = arith.select(ty.var >= 3, te.const(0), te.const(2))
    loop = For(v, te.const(0), extent, ForKind.SERIAL, SeqStmt((fetch, barrier(), own)))
    text = str(uniform_barriers(AttrStmt(ty, "thread_extent", te.const(4), loop)))
    assert "for (v, 0, 2) {\n  S[((v*4) + threadIdx.y)] = 1.000000f\n  tvm_storage_sync" in text
    assert "if ((threadIdx.y < 3)) {\n    L[v] =" in text
