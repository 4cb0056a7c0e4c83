"""TVM's lower_warp_memory tests, written anew: a stage cached in ``warp`` scope is one buffer per
warp that its threads exchange values through, with ``tvm_storage_sync("warp")`` where a thread
reads what another wrote; every build equals NumPy on both targets and in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import LoweringError, UnwrittenReadError, build, lower, schedule_ops
from lower.ir.stmt import Evaluate
from lower.ir.stmt_functor import StmtMutator
from lower.passes.thread_sync import is_barrier

BOTH = pytest.mark.parametrize("exact", [False, True])
DTYPES = pytest.mark.parametrize("dtype", ["float32", "float16"])
WARP_SYNC = 'tvm_storage_sync("warp")'


def _warps_of_64(read, dtype: str = "float32"):
    """TVM's schedule of ``B[i] = read(A, i)`` over 128: blocks of 64, two warps of 32 threads
    each, A fetched into warp memory at the block."""
    A = te.placeholder((128,), name="A", dtype=dtype)
    B = te.compute((128,), lambda i: read(A, i), name="B")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, "warp", [B])
    xo, xi = s[B].split(B.op.axis[0], 64)
    _, xi1 = s[B].split(xi, factor=32)
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(xi1, tx)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[AA].compute_at(s[B], xo)
    _, xi = s[AA].split(s[AA].op.axis[0], 32)
    s[AA].bind(xi, tx)
    return s, A, B


def _shifted_in_warps(dtype: str = "float32"):
    """TVM's end-to-end case: each thread reads its right neighbour's element of the warp."""
    return _warps_of_64(lambda A, i: A[i // 32 * 32 + (i + 1) % 32], dtype)


def _expected_shift(a: np.ndarray) -> np.ndarray:
    i = np.arange(a.size)
    return a[i // 32 * 32 + (i + 1) % 32]


@BOTH
@DTYPES
def test_end_to_end(exact, dtype):
    s, A, B = _shifted_in_warps(dtype)
    text = str(lower(s, [A, B], exact=exact))
    assert text.count(WARP_SYNC) == 1
    # The sync sits between the warp's writes and the reads of other threads' elements.
    assert text.index("produce A.warp") < text.index(WARP_SYNC) < text.index("B[")
    a = np.arange(128).astype(dtype)
    b = np.full(128, np.nan, dtype)
    build(s, [A, B], exact=exact)(a, b)
    np.testing.assert_array_equal(b, _expected_shift(a))


@BOTH
def test_local_scope_allocates_what_one_warp_holds(exact):
    # TVM turns the 64 elements of a warp into 2 registers per thread of its 32; ours stay one
    # buffer of 64 per warp.
    m = 128
    s, A, B = _warps_of_64(lambda A, i: A[i] + 3)
    text = str(lower(s, [A, B], exact=exact))
    assert "allocate A.warp[float32 * 64]" in text
    a = np.random.default_rng(0).standard_normal(m).astype("float32")
    b = np.full(m, np.nan, "float32")
    build(s, [A, B], exact=exact)(a, b)
    np.testing.assert_array_equal(b, a + 3)


def _rows_in_warps(bind_rows: bool):
    n = 32
    A = te.placeholder((2, n, n), name="A")
    C = te.compute((2, n, n), lambda x, i, j: A(x, i, (j + 1) % n), name="C")
    s = te.create_schedule(C.op)
    th_y, th_x = te.thread_axis("threadIdx.y"), te.thread_axis("threadIdx.x")
    B = s.cache_read(A, "warp", [C])
    cx, ci, cj = C.op.axis
    _, bi, bj = B.op.axis
    s[C].bind(cj, th_x)
    s[C].bind(cx, te.thread_axis("blockIdx.x"))
    s[B].compute_at(s[C], cx)
    if bind_rows:  # each warp reads the row it writes: a buffer of one row per warp
        s[C].bind(ci, th_y)
    else:  # TVM's case
        s[B].bind(bi, th_y)
    s[B].bind(bj, th_x)
    return s, A, C


@BOTH
def test_correct_indices_use_threadidx_x_not_y(exact):
    s, A, C = _rows_in_warps(bind_rows=False)
    # Each warp (one threadIdx.y) has a buffer of its own, so threadIdx.y is not an index of it:
    # a warp computes its region from the minimum of threadIdx.y, as TVM's loop nest does.
    store = next(line for line in str(schedule_ops(s.normalize())).splitlines()
                 if line.strip().startswith("A.warp("))
    assert store.split("=")[0].strip() == "A.warp(blockIdx.x, 0, threadIdx.x)"
    # TVM only checks those indices: run, the consumer reads rows 1-31 of its warp's buffer,
    # which no thread of the warp wrote; the checked target says so.
    a = np.random.default_rng(1).standard_normal((2, 32, 32)).astype("float32")
    c = np.full((2, 32, 32), np.nan, "float32")
    with pytest.raises(UnwrittenReadError, match=r"read of A\.warp at flat index 33"):
        build(s, [A, C], exact=exact, target="python")(a, c)


@BOTH
def test_rows_bound_to_warps(exact):
    s, A, C = _rows_in_warps(bind_rows=True)
    assert "allocate A.warp[float32 * 32]" in str(lower(s, [A, C], exact=exact))
    a = np.random.default_rng(1).standard_normal((2, 32, 32)).astype("float32")
    c = np.full((2, 32, 32), np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, np.roll(a, -1, axis=2))


@BOTH
@DTYPES
def test_half_a_warp(exact, dtype):
    n = m = 16
    A = te.placeholder((n, m), name="A", dtype=dtype)
    B = te.compute((n, m), lambda j, i: A[j, (i + 1) % m], name="B")
    s = te.create_schedule(B.op)
    tx, ty, bx = te.thread_axis("threadIdx.x"), te.thread_axis("threadIdx.y"), te.thread_axis("blockIdx.x")
    AA = s.cache_read(A, "warp", [B])
    y, x = B.op.axis
    z, y = s[B].split(y, nparts=2)
    s[B].bind(x, tx)
    s[B].bind(y, ty)
    s[B].bind(z, bx)
    s[AA].compute_at(s[B], y)
    _, x = AA.op.axis
    s[AA].bind(x, tx)
    a = np.array([list(range(i, m + i)) for i in range(n)], dtype=dtype)
    b = np.full((n, m), np.nan, dtype)
    build(s, [A, B], exact=exact)(a, b)
    np.testing.assert_array_equal(b, np.array([list(range(1 + i, m + i)) + [i] for i in range(n)], dtype=dtype))


@BOTH
@DTYPES
def test_two_buffers(exact, dtype):
    m = 32
    A = te.placeholder((m,), name="A", dtype=dtype)
    B = te.placeholder((m,), name="B", dtype=dtype)
    C = te.compute((m,), lambda i: A[(i + 1) % m] + B[(i + 1) % m], name="C")
    s = te.create_schedule(C.op)
    tx, bx = te.thread_axis("threadIdx.x"), te.thread_axis("blockIdx.x")
    AA = s.cache_read(A, "warp", [C])
    BB = s.cache_read(B, "warp", [C])
    xo, xi = s[C].split(C.op.axis[0], nparts=1)
    s[C].bind(xi, tx)
    s[C].bind(xo, bx)
    for T in (AA, BB):
        s[T].compute_at(s[C], xo)
        o, i = s[T].split(s[T].op.axis[0], nparts=1)
        s[T].bind(o, bx)
        s[T].bind(i, tx)
    text = str(lower(s, [A, B, C], exact=exact))
    assert text.count(WARP_SYNC) == 1
    ab = np.arange(m).astype(dtype)
    c = np.full(m, np.nan, dtype)
    build(s, [A, B, C], exact=exact)(ab, ab.copy(), c)
    np.testing.assert_array_equal(c, np.roll(ab, -1) * 2)


def _split_over_threads(m: int, threads: int):
    """TVM's roundup case: ``B = A + 1`` over blocks of *threads*, A fetched into warp memory."""
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=threads)
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, tx)
    AA = s.cache_read(A, "warp", [B])
    _, yi = s[AA].split(s[AA].op.axis[0], factor=threads)
    s[AA].bind(yi, tx)
    s[AA].compute_at(s[B], xo)
    return s, A, B


@BOTH
@pytest.mark.parametrize("m", [31, 32, 33, 63, 64, 65])
def test_roundup(exact, m):
    s, A, B = _split_over_threads(m, 32)
    a = np.random.default_rng(m).uniform(size=m).astype("float32")
    b = np.full(m, np.nan, "float32")
    build(s, [A, B], exact=exact)(a, b)
    np.testing.assert_array_equal(b, a + np.float32(1))


@BOTH
def test_same_thread_needs_no_sync(exact):
    m = n = 128
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((m,), lambda i: te.sum(A[i, k], axis=[k]), name="B")
    s = te.create_schedule(B.op)
    BB = s.cache_write(B, "warp")
    tx = te.thread_axis("threadIdx.x")
    xo, xi = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(xi, tx)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[BB].compute_at(s[B], xo)
    _, xi = s[BB].split(s[BB].op.axis[0], factor=32)
    s[BB].bind(xi, tx)
    # Every thread reads only the element it wrote: no exchange, so no sync (TVM: no shuffle).
    assert "tvm_storage_sync" not in str(lower(s, [A, B], exact=exact))
    a = np.random.default_rng(2).integers(-4, 5, (m, n)).astype("float32")
    b = np.full(m, np.nan, "float32")
    build(s, [A, B], exact=exact)(a, b)
    np.testing.assert_array_equal(b, a.sum(axis=1))


class _DropBarriers(StmtMutator):
    def visit_evaluate(self, s: Evaluate):
        return Evaluate(te.const(0, "int32")) if is_barrier(s) else s


def test_python_target_reports_a_read_no_thread_of_the_warp_wrote():
    s, A, B = _shifted_in_warps()
    f = build(s, [A, B], target="python")
    from lower.backend.python.kernel import PythonKernel
    body = _DropBarriers()(f.lowered.body)
    kernel = PythonKernel(body, [f.lowered.buffers[t] for t in (A, B)], [])
    a = np.arange(128, dtype="float32")
    with pytest.raises(UnwrittenReadError, match=r"read of A\.warp at flat index 1, which no thread of the warp"):
        kernel([a, np.zeros(128, "float32")], [], [False, True])


@pytest.mark.parametrize("target", ["python", "c"])
def test_threadidx_x_must_divide_the_warp(target):
    s, A, B = _split_over_threads(128, 64)
    with pytest.raises(LoweringError, match=r"warp memory A\.warp needs threadIdx\.x's extent to be a constant "
                                            r"that divides the warp size \(32\), not 64"):
        build(s, [A, B], target=target)


def test_warp_memory_needs_threadidx_x():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.y"))
    AA = s.cache_read(A, "warp", [B])
    s[AA].compute_at(s[B], xo)
    with pytest.raises(LoweringError, match=r"warp memory A\.warp needs threadIdx\.x bound in its kernel"):
        build(s, [A, B], target="python")


def _unwritten_warp_buffer(ins, outs, write):
    import schedule.ir.ir_builder as irb
    ib = irb.create()
    bx, tx = te.thread_axis("blockIdx.x"), te.thread_axis("threadIdx.x")
    ib.scope_attr(bx, "thread_extent", 2)
    ib.scope_attr(tx, "thread_extent", 32)
    t = ib.allocate("float32", 16, name="t", scope="warp")
    n = ib.allocate("float32", 16, name="n", scope="local")
    if write:
        t[0] = 1.0  # every lane at index 0: no lane of its own
    n[0] = t[0]
    out = ib.buffer_ptr(outs[0])
    out[bx * 32 + tx] = n[0]
    return ib.get()


@pytest.mark.parametrize("target", ["python", "c"])
@pytest.mark.parametrize("write", [False, True])
def test_a_warp_buffer_no_lane_owns_is_refused(write, target):
    """TVM's divide_by_factor case: a warp buffer of 16 that no store indexes by threadIdx.x has
    no layout over the lanes (TVM divides by zero); here a LoweringError says what is missing."""
    C = te.extern((64,), [], lambda ins, outs: _unwritten_warp_buffer(ins, outs, write), name="C", dtype="float32")
    s = te.create_schedule(C.op)
    with pytest.raises(LoweringError, match="warp memory t: (no store writes it|a store into it is not indexed "
                                            "by threadIdx.x)"):
        build(s, [C], target=target)
