"""GPU-style schedules (bind, shared and local caches, vthreads) compute on the CPU what a GPU would."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import schedule as te
from bound import infer_bound
from lower import BarrierDivergenceError, LoweringError, UnwrittenReadError, build, lower
from lower.backend import compile_source, python_source
from lower.ir.stmt import AttrStmt, Evaluate, IfThenElse, SeqStmt, Stmt, Store
from lower.ir.stmt_functor import StmtMutator, walk
from lower.lower import LoweredFunc
from lower.passes.thread_sync import barrier, is_barrier

from ..conftest import snapshot


def _text(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


def _local_stage(thread_tag: str, scope: str):
    """TVM's test_local_stage_predicate."""
    m, n, p = 1, 3, 2
    A = te.placeholder((m, n, p), name="A")
    B = te.compute((m, n, p), lambda bi, bj, bk: A[bi, bj, bk], name="B")
    C = te.compute((m, n, p), lambda ci, cj, ck: B[ci, cj, ck], name="C")
    thread = te.thread_axis(thread_tag)
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], s[C].op.axis[0])
    s[B].set_scope(scope)
    bno, bni = s[B].split(s[B].op.axis[1], n)
    s[C].bind(s[C].op.axis[0], te.thread_axis("blockIdx.x"))
    s[C].bind(s[C].op.axis[1], thread)
    s[B].bind(bni, thread)
    return s, A, C


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("tag, scope", [("threadIdx.x", "local"), ("vthread", "local"), ("blockIdx.y", "shared")])
def test_a_stage_stored_below_its_threads_level_starts_at_the_domain_minimum(tag, scope, exact):
    s, A, C = _local_stage(tag, scope)
    body = lower(s, [A, C], exact=exact).body
    assert not any(isinstance(x, IfThenElse) for x in walk(body))
    a = np.random.default_rng(0).standard_normal((1, 3, 2)).astype("float32")
    c = np.full((1, 3, 2), np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, a)


def test_each_thread_computes_its_own_local_copy():
    s, A, C = _local_stage("threadIdx.x", "local")
    assert str(lower(s, [A, C])) == _text("""
        produce C {
          // attr [iter_var(blockIdx.x, , blockIdx.x)] thread_extent = 1
          // attr [B] storage_scope = "local"
          allocate B[float32 * 2]
          produce B {
            // attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = 3
            for (bk, 0, 2) {
              B[bk] = A[((threadIdx.x*2) + bk)]
            }
          }
          // attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = 3
          for (ck, 0, 2) {
            C[((threadIdx.x*2) + ck)] = B[ck]
          }
        }
    """)


@pytest.mark.parametrize("exact", [False, True])
def test_a_local_cache_fetched_per_thread_into_a_shared_stage(exact):
    """TVM's test_local_stage_predicate2: one 97-element local copy per thread, no guards."""
    A = te.placeholder((128,), name="A")
    B = te.compute((128,), lambda bi: A[bi] + 1, name="B")
    C = te.compute((128,), lambda ci: B[ci] + 2, name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "local", [B])
    s[B].set_scope("shared")
    block_x = te.thread_axis("blockIdx.x")
    thread_x = te.thread_axis((0, 32), "threadIdx.x")
    oc, ic = s[C].split(s[C].op.axis[0], factor=64)
    ooc, ioc = s[C].split(oc, factor=2)
    oic, iic = s[C].split(ic, factor=32)
    s[C].bind(ooc, block_x)
    s[C].bind(iic, thread_x)
    s[B].compute_at(s[C], ioc)
    ob, ib = s[B].split(s[B].op.axis[0], factor=32)
    s[B].bind(ib, thread_x)
    s[AA].compute_root()
    s[AA].compute_at(s[C], ooc)
    oaa, iaa = s[AA].split(s[AA].op.axis[0], factor=32)
    s[AA].bind(iaa, thread_x)
    b = infer_bound(s, exact=exact)
    assert int(b[AA.op.axis[0]].extent) == 97 and str(b[AA.op.axis[0]].min) == "threadIdx.x"
    text = str(lower(s, [A, C], exact=exact))
    assert "allocate A.local[float32 * 97]" in text and "if (" not in text
    a = np.random.default_rng(1).standard_normal(128).astype("float32")
    c = np.full(128, np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_allclose(c, a + 3, rtol=1e-6)


def _row_sum_with_shared_fetch():
    """Rows summed by threadIdx.x; each k.outer step fetches a shared tile column-wise, so a
    thread reads what the others fetched."""
    n = 32
    A = te.placeholder((n, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, "shared", [B])
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    ko, ki = s[B].split(k, factor=8)
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, tx)
    s[AS].compute_at(s[B], ko)
    s[AS].bind(AS.op.axis[1], tx)
    return s, A, B


@pytest.mark.parametrize("exact", [False, True])
def test_a_cooperative_fetch_is_fenced_by_barriers(exact):
    s, A, B = _row_sum_with_shared_fetch()
    assert str(lower(s, [A, B], exact=exact)) == _text("""
        produce B {
          // attr [iter_var(blockIdx.x, , blockIdx.x)] thread_extent = 4
          // attr [A.shared] storage_scope = "shared"
          allocate A.shared[float32 * 64]
          // attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = 8
          B[((blockIdx.x*8) + threadIdx.x)] = 0.000000f
          for (k.outer, 0, 4) {
            produce A.shared {
              tvm_storage_sync("shared")
              for (ax0, 0, 8) {
                A.shared[((ax0*8) + threadIdx.x)] = A[((((blockIdx.x*256) + (ax0*32)) + (k.outer*8)) + threadIdx.x)]
              }
            }
            tvm_storage_sync("shared")
            for (k.inner, 0, 8) {
              B[((blockIdx.x*8) + threadIdx.x)] = (B[((blockIdx.x*8) + threadIdx.x)] + A.shared[((threadIdx.x*8) + k.inner)])
            }
          }
        }
    """)
    a = np.random.default_rng(2).standard_normal((32, 32)).astype("float32")
    b = np.full(32, np.nan, "float32")
    build(s, [A, B], exact=exact)(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


class _DropBarriers(StmtMutator):
    def visit_seq_stmt(self, s: SeqStmt) -> Stmt:
        return SeqStmt(tuple(self(x) for x in s.seq if not is_barrier(x)))


def test_without_its_barriers_the_cooperative_fetch_reads_what_no_thread_wrote():
    """The barriers matter: the same function without them reads tiles other threads have not
    fetched yet (the control for the test above); the checked target says so."""
    s, A, B = _row_sum_with_shared_fetch()
    f = lower(s, [A, B])
    unsynced = LoweredFunc(f.args, f.buffers, _DropBarriers()(f.body), f.exact, params=f.params)
    assert "tvm_storage_sync" not in str(unsynced)
    kernel = compile_source(python_source(unsynced.body, [f.buffers[t] for t in f.tensors]))
    a = np.random.default_rng(3).standard_normal((32, 32))
    with pytest.raises(UnwrittenReadError, match=r"read of A\.shared at flat index 1, which no thread of the block"):
        kernel(a.reshape(-1).tolist(), [0.0] * 32)


def _gemm(n=32, num_thread=4, scale=2, vthread=2):
    """The classic TVM CUDA GEMM schedule: shared and local caches, vthreads, cooperative fetch."""
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda ii, jj: te.sum(A[k, jj] * B[k, ii], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA, BB = s.cache_read(A, "shared", [C]), s.cache_read(B, "shared", [C])
    AL, BL = s.cache_read(AA, "local", [C]), s.cache_read(BB, "local", [C])
    CC = s.cache_write(C, "local")
    block_factor = scale * num_thread
    block_x, block_y = te.thread_axis("blockIdx.x"), te.thread_axis("blockIdx.y")
    thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
    thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
    thread_xz = te.thread_axis((0, vthread), "vthread", name="vx")
    thread_yz = te.thread_axis((0, vthread), "vthread", name="vy")
    by, yi = s[C].split(C.op.axis[0], factor=block_factor)
    bx, xi = s[C].split(C.op.axis[1], factor=block_factor)
    s[C].bind(by, block_y)
    s[C].bind(bx, block_x)
    s[C].reorder(by, bx, yi, xi)
    tyz, yi = s[C].split(yi, nparts=vthread)
    ty, yi = s[C].split(yi, nparts=num_thread)
    txz, xi = s[C].split(xi, nparts=vthread)
    tx, xi = s[C].split(xi, nparts=num_thread)
    s[C].bind(tyz, thread_yz)
    s[C].bind(txz, thread_xz)
    s[C].bind(ty, thread_y)
    s[C].bind(tx, thread_x)
    s[C].reorder(tyz, txz, ty, tx, yi, xi)
    s[CC].compute_at(s[C], tx)
    ko, ki = s[CC].split(k, factor=8)
    kt, ki = s[CC].split(ki, factor=1)
    s[CC].reorder(ko, kt, ki, *CC.op.axis)
    s[AA].compute_at(s[CC], ko)
    s[BB].compute_at(s[CC], ko)
    s[AL].compute_at(s[CC], kt)
    s[BL].compute_at(s[CC], kt)
    for T in (AA, BB):
        ty2, xi2 = s[T].split(s[T].op.axis[0], nparts=num_thread)
        _, xi2 = s[T].split(s[T].op.axis[1], factor=num_thread * 4)
        tx2, xi2 = s[T].split(xi2, nparts=num_thread)
        s[T].bind(ty2, thread_y)
        s[T].bind(tx2, thread_x)
        s[T].vectorize(xi2)
    return s, A, B, C


@pytest.mark.parametrize("exact", [False, True])
def test_matmul_with_blocks_threads_vthreads_and_caches(exact):
    s, A, B, C = _gemm()
    text = str(lower(s, [A, B, C], exact=exact))
    # One local accumulator per (vthread, vthread) pair, two barriers per k.outer step.
    assert "allocate C.local[float32 * 4]" in text
    assert text.count('tvm_storage_sync("shared")') == 2
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((32, 32)).astype("float32"), rng.standard_normal((32, 32)).astype("float32")
    c = np.full((32, 32), np.nan, "float32")
    build(s, [A, B, C], exact=exact)(a, b, c)
    np.testing.assert_allclose(c, b.T @ a, rtol=1e-4, atol=1e-5)


def _conv(batch=8, in_channel=4, out_channel=8, in_size=3, kernel=3, pad=1, tile=2, num_thread=2, step=2, vthread=2):
    """TVM's CUDA convolution tutorial at small sizes."""
    A = te.placeholder((in_size, in_size, in_channel, batch), name="A")
    W = te.placeholder((kernel, kernel, in_channel, out_channel), name="W")
    out_size = in_size - kernel + 2 * pad + 1
    Apad = te.compute(
        (in_size + 2 * pad, in_size + 2 * pad, in_channel, batch),
        lambda yy, xx, cc, nn: te.if_then_else(te.all(yy >= pad, yy - pad < in_size, xx >= pad, xx - pad < in_size),
                                               A[yy - pad, xx - pad, cc, nn], te.const(0.0, "float32")),
        name="Apad")
    rc = te.reduce_axis((0, in_channel), name="rc")
    ry = te.reduce_axis((0, kernel), name="ry")
    rx = te.reduce_axis((0, kernel), name="rx")
    B = te.compute((out_size, out_size, out_channel, batch),
                   lambda yy, xx, ff, nn: te.sum(Apad[yy + ry, xx + rx, rc, nn] * W[ry, rx, rc, ff], axis=[ry, rx, rc]),
                   name="B")
    s = te.create_schedule(B.op)
    s[Apad].compute_inline()
    AA, WW = s.cache_read(Apad, "shared", [B]), s.cache_read(W, "shared", [B])
    AL, WL = s.cache_read(AA, "local", [B]), s.cache_read(WW, "local", [B])
    BL = s.cache_write(B, "local")
    block_factor = tile * num_thread
    thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
    thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
    hi, wi, fi, ni = s[B].op.axis
    bz = s[B].fuse(hi, wi)
    by, fi = s[B].split(fi, factor=block_factor)
    bx, ni = s[B].split(ni, factor=block_factor)
    s[B].bind(bz, te.thread_axis("blockIdx.z"))
    s[B].bind(by, te.thread_axis("blockIdx.y"))
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    tyz, fi = s[B].split(fi, nparts=vthread)
    txz, ni = s[B].split(ni, nparts=vthread)
    ty, fi = s[B].split(fi, nparts=num_thread)
    tx, ni = s[B].split(ni, nparts=num_thread)
    s[B].reorder(bz, by, bx, tyz, txz, ty, tx, fi, ni)
    s[B].bind(tyz, te.thread_axis((0, vthread), "vthread", name="vy"))
    s[B].bind(txz, te.thread_axis((0, vthread), "vthread", name="vx"))
    s[B].bind(ty, thread_y)
    s[B].bind(tx, thread_x)
    s[BL].compute_at(s[B], tx)
    ry, rx, rc = s[BL].op.reduce_axis
    rco, rci = s[BL].split(rc, factor=step)
    s[BL].reorder(rco, ry, rx, rci, *s[BL].op.axis[2:])
    s[AA].compute_at(s[BL], rx)
    s[WW].compute_at(s[BL], rx)
    s[AL].compute_at(s[BL], rci)
    s[WL].compute_at(s[BL], rci)
    for T in (AA, WW):
        yi, xi, ci, last = s[T].op.axis
        ty_, ci = s[T].split(ci, nparts=num_thread)
        tx_, last = s[T].split(last, nparts=num_thread)
        _, last = s[T].split(last, factor=4)
        s[T].reorder(ty_, tx_, yi, xi, ci, last)
        s[T].bind(ty_, thread_y)
        s[T].bind(tx_, thread_x)
        s[T].vectorize(last)
    return s, A, W, B


@pytest.mark.parametrize("exact", [False, True])
def test_the_cuda_convolution_tutorial_at_small_sizes(exact):
    s, A, W, B = _conv()
    rng = np.random.default_rng(5)
    a = rng.uniform(size=(3, 3, 4, 8)).astype("float32")
    w = rng.uniform(size=(3, 3, 4, 8)).astype("float32")
    b = np.full((3, 3, 8, 8), np.nan, "float32")
    build(s, [A, W, B], exact=exact)(a, w, b)
    padded = np.pad(a, ((1, 1), (1, 1), (0, 0), (0, 0)))
    expected = np.zeros_like(b)
    for y in range(3):
        for x in range(3):
            expected[y, x] = np.einsum("abcn,abcf->fn", padded[y:y + 3, x:x + 3], w)
    np.testing.assert_allclose(b, expected, rtol=1e-5)


@pytest.mark.parametrize("exact", [False, True])
def test_a_thread_bound_in_a_stage_nested_in_its_own_loop_is_one_index(exact):
    A = te.placeholder((4, 8), name="A")
    B = te.compute((4, 8), lambda i, j: A[i, j] * 2, name="B")
    C = te.compute((4, 8), lambda i, j: B[i, j] + 1, name="C")
    s = te.create_schedule(C.op)
    tx = te.thread_axis("threadIdx.x")
    s[C].bind(C.op.axis[0], te.thread_axis("blockIdx.x"))
    s[C].bind(C.op.axis[1], tx)
    s[B].set_scope("shared")  # shared: B's region spans the threads, each computing its element
    s[B].compute_at(s[C], C.op.axis[1])
    s[B].bind(B.op.axis[1], tx)
    body = lower(s, [A, C], exact=exact).body
    attrs = [x for x in walk(body) if isinstance(x, AttrStmt) and x.key == "thread_extent"]
    assert [a.node.thread_tag for a in attrs] == ["blockIdx.x", "threadIdx.x"]
    a = np.arange(32, dtype="float32").reshape(4, 8)
    c = np.full((4, 8), np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, a * 2 + 1)


def test_binding_two_leaves_of_one_stage_to_one_thread_is_refused():
    A = te.placeholder((4, 8), name="A")
    C = te.compute((4, 8), lambda i, j: A[i, j], name="C")
    s = te.create_schedule(C.op)
    s[C].bind(C.op.axis[0], te.thread_axis("threadIdx.x"))
    before = snapshot(s)
    with pytest.raises(te.ScheduleError, match="bind: stage 'C', IterVar 'j' cannot be bound to 'threadIdx.x': "
                                               "the leaf 'i' of this stage is already bound to it"):
        s[C].bind(C.op.axis[1], te.thread_axis("threadIdx.x"))
    assert snapshot(s) == before
    # Two different virtual threads are two indices.
    s = te.create_schedule(C.op)
    s[C].bind(C.op.axis[0], te.thread_axis("vthread"))
    s[C].bind(C.op.axis[1], te.thread_axis("vthread"))
    a = np.arange(32, dtype="float32").reshape(4, 8)
    c = np.full((4, 8), np.nan, "float32")
    build(s, [A, C])(a, c)
    np.testing.assert_array_equal(c, a)


def test_threads_that_skip_a_barrier_are_reported():
    tx = te.thread_axis("threadIdx.x")
    from schedule import arith

    guarded = IfThenElse(arith.lt(tx.var, 2), SeqStmt((barrier(), Evaluate(arith.const(0)))))
    kernel = compile_source(python_source(AttrStmt(tx, "thread_extent", arith.const(4), guarded), []))
    with pytest.raises(BarrierDivergenceError, match="2 of 4 threads of a block finished"):
        kernel()


def test_a_barrier_needed_inside_a_condition_is_refused():
    from lower.ir.stmt import Buffer, Load
    from lower.passes.thread_sync import thread_sync
    from schedule import arith

    tx = te.thread_axis("threadIdx.x")
    shared = Buffer("S", "float32", (arith.const(4),), "shared")
    out = Buffer("O", "float32", (arith.const(4),), "global")
    write = Store(shared, arith.const(1.0), tx.var)
    read = Store(out, Load(shared, arith.sub(3, tx.var)), tx.var)
    fine = AttrStmt(tx, "thread_extent", arith.const(4), SeqStmt((write, read)))
    assert 'tvm_storage_sync("shared")' in str(thread_sync(fine))
    guarded = AttrStmt(tx, "thread_extent", arith.const(4),
                       IfThenElse(arith.lt(tx.var, 3), SeqStmt((write, read))))
    with pytest.raises(LoweringError, match="a barrier is needed inside a condition"):
        thread_sync(guarded)


@pytest.mark.parametrize("exact", [False, True])
def test_a_shared_stage_at_a_tail_runs_on_the_threads_below_its_extent(exact):
    """In exact mode the region at the tail is shorter than the threads launched for it."""
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: A[i] + 1, name="B")
    C = te.compute((10,), lambda i: B[9 - i], name="C")
    s = te.create_schedule(C.op)
    tx = te.thread_axis("threadIdx.x")
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[C].bind(xo, te.thread_axis("blockIdx.x"))
    s[C].bind(xi, tx)
    s[B].set_scope("shared")
    s[B].compute_at(s[C], xo)
    s[B].bind(B.op.axis[0], tx)
    text = str(lower(s, [A, C], exact=exact))
    assert text.count("thread_extent = 4") == 2
    a = np.arange(10, dtype="float32")
    c = np.full(10, np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, (a + 1)[::-1])


def test_a_shared_reduction_every_thread_repeats_is_refused():
    """Bound to no thread, a reduction in shared memory would be accumulated once per thread
    (a race on a GPU); lower prints it as TVM does, build refuses it."""
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    R = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="R")
    C = te.compute((4,), lambda i: R[i] * 2, name="C")
    s = te.create_schedule(C.op)
    s[C].bind(C.op.axis[0], te.thread_axis("threadIdx.x"))
    s[R].set_scope("shared")
    s[R].compute_at(s[C], C.op.axis[0])
    assert "R[" in str(lower(s, [A, C]))
    with pytest.raises(LoweringError, match="stage 'R' accumulates into shared memory in every thread"):
        build(s, [A, C])
    s[R].set_scope("local")  # each thread's own copy: fine
    a = np.arange(16, dtype="float32").reshape(4, 4)
    c = np.full(4, np.nan, "float32")
    build(s, [A, C])(a, c)
    np.testing.assert_array_equal(c, a.sum(axis=1) * 2)
