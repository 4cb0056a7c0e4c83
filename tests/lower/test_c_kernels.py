"""GPU kernels and calls into Python on the C target: the kernel is cut at its barriers, what a
thread keeps across a barrier lives per thread, and errors in Python functions come back."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import schedule.base.packed as packed
from lower import LoweringError, build
from lower.backend import CKernel, compile_source, python_source
from lower.backend.c import compile as c_compile
from lower.backend.c.stmt import c_source
from lower.ir.stmt import Allocate, AttrStmt, Buffer, For, ForKind, IfThenElse, LetStmt, Load, SeqStmt, Store
from lower.passes.thread_sync import barrier
from schedule import arith

pytestmark = pytest.mark.skipif(c_compile.find_compiler() is None, reason="no C compiler")


def _run_c(body, buffers, arrays):
    """Run *body* in C on copies of *arrays*; the results and the source."""
    kernel = CKernel(body, buffers, [])
    out = [a.copy() for a in arrays]
    kernel(out, [], [True] * len(out))
    return out, kernel.source


def _run_both(body, buffers, arrays):
    """Run *body* on copies of *arrays* in C and in Python; both results."""
    c_arrays, source = _run_c(body, buffers, arrays)
    lists = [a.reshape(-1).tolist() for a in arrays]
    compile_source(python_source(body, buffers, checks=True))(*lists)
    return c_arrays, [np.asarray(x, dtype=a.dtype).reshape(a.shape) for x, a in zip(lists, arrays)], source


def test_a_let_and_a_local_buffer_of_each_thread_survive_a_barrier():
    # v = 2*tx and L[0] = 10*tx before the barrier; after it, out[tx] = S[3 - tx] + v + L[0],
    # where S[t] = v of thread t: 2*(3 - tx) + 2*tx + 10*tx = 6 + 10*tx.
    tx = te.thread_axis("threadIdx.x")
    v = te.var("v")
    shared = Buffer("S", "int32", (arith.const(4),), "shared")
    local = Buffer("L", "int32", (arith.const(1),), "local")
    out = Buffer("out", "int32", (arith.const(4),))
    body = LetStmt(v, arith.mul(tx.var, 2), SeqStmt((
        Store(shared, v, tx.var),
        Store(local, arith.mul(tx.var, 10), arith.const(0)),
        barrier(),
        Store(out, arith.add(arith.add(Load(shared, arith.sub(3, tx.var)), v), Load(local, arith.const(0))),
              tx.var))))
    kernel = AttrStmt(tx, "thread_extent", arith.const(4), AttrStmt(
        shared, "storage_scope", te.const(0), Allocate(shared, Allocate(local, body))))
    (c_out,), (py_out,), source = _run_both(kernel, [out], [np.full(4, -1, "int32")])
    np.testing.assert_array_equal(c_out, 6 + 10 * np.arange(4))
    np.testing.assert_array_equal(py_out, c_out)
    assert "v_threads[tid] = (threadIdx_x * 2);" in source  # the let, one slot per thread
    assert "L_threads" in source


def test_a_condition_that_differs_between_threads_is_checked_in_each_stretch():
    # Threads 0..2 take part; thread 3 writes nothing. Every thread of the condition's side
    # passes the barrier together.
    tx = te.thread_axis("threadIdx.x")
    shared = Buffer("S", "float32", (arith.const(4),), "shared")
    out = Buffer("out", "float32", (arith.const(4),))
    inner = SeqStmt((Store(shared, arith.add(arith.cast("float32", tx.var), 0.5), tx.var), barrier(),
                     Store(out, Load(shared, arith.sub(2, tx.var)), tx.var)))
    body = IfThenElse(arith.lt(tx.var, 3), inner, Store(out, arith.const(-2.0), tx.var))
    kernel = AttrStmt(tx, "thread_extent", arith.const(4), Allocate(shared, body))
    # C alone: the Python target reports a barrier that some threads skip.
    (c_out,), source = _run_c(kernel, [out], [np.full(4, np.nan, "float32")])
    np.testing.assert_array_equal(c_out, [2.5, 1.5, 0.5, -2.0])
    assert source.count("if ((threadIdx_x < 3))") == 2  # once per stretch


def test_a_loop_around_a_barrier_must_run_alike_in_every_thread():
    tx = te.thread_axis("threadIdx.x")
    k = te.var("k")
    shared = Buffer("S", "float32", (arith.const(4),), "shared")
    loop = For(k, arith.const(0), tx.var, ForKind.SERIAL, SeqStmt((Store(shared, arith.const(1.0), tx.var),
                                                                    barrier())))
    with pytest.raises(LoweringError, match="loops around a barrier.*loop 'k' does not"):
        c_source(AttrStmt(tx, "thread_extent", arith.const(4), loop), [], [])


def test_blocks_run_as_a_parallel_loop_and_cross_thread_sums_agree_with_numpy():
    n, m = 6, 16
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(k, te.thread_axis("threadIdx.x"))
    f = build(s, [A, B], target="c")
    source = f.get_source()
    assert "#pragma omp parallel for schedule(static)\n    for (int32_t blockIdx_x = 0;" in source
    a = np.random.default_rng(3).integers(-4, 5, (n, m)).astype("float32")
    b = np.full(n, np.nan, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, a.sum(axis=1))


def test_an_error_in_a_python_function_comes_back_from_the_call(monkeypatch):
    monkeypatch.setattr(packed, "_FUNCS", dict(packed._FUNCS))

    def refuse(x):
        raise ArithmeticError(f"refused {x}")

    te.register_func("refuse", refuse)
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: te.call_pure_extern("float32", "refuse", A[i]), name="B")
    f = build(te.create_schedule(B.op), [A, B], target="c")
    with pytest.raises(ArithmeticError, match="refused 0.0"):
        f(np.zeros(4, "float32"), np.zeros(4, "float32"))


def test_a_python_function_receives_the_kernels_memory_and_writes_it(monkeypatch):
    monkeypatch.setattr(packed, "_FUNCS", dict(packed._FUNCS))
    seen = []

    def double_into(x, y):
        seen.append((x.shape, x.flags.writeable, y.flags.writeable))
        y[:] = 2 * x

    te.register_func("double_into", double_into)
    A = te.placeholder((3, 5), name="A")
    B = te.extern((3, 5), [A], lambda ins, outs: te.call_packed("double_into", ins[0], outs[0]), name="B")
    f = build(te.create_schedule(B.op), [A, B], target="c")
    a = np.arange(15, dtype="float32").reshape(3, 5)
    b = np.full((3, 5), np.nan, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, 2 * a)
    assert seen == [((3, 5), False, True)]  # the function's input is read-only


def test_an_allocation_of_negative_extent_is_empty():
    # At m = 1 the temporary has m - 2 = -1 elements; as on the Python target it is empty
    # (a negative count once asked the allocator for 2^64 bytes and aborted the process).
    m, i = te.var("m"), te.var("i")
    tmp = Buffer("tmp", "float32", (arith.sub(m, 2),))
    out = Buffer("out", "float32", (arith.const(1),))
    body = Allocate(tmp, SeqStmt((For(i, arith.const(0), arith.sub(m, 2), ForKind.SERIAL,
                                      Store(tmp, arith.const(1.0), i)),
                                  Store(out, arith.const(7.0), arith.const(0)))))
    kernel = CKernel(body, [out], [m])
    for size in (1, 2, 5):
        o = np.zeros(1, "float32")
        kernel([o], [size], [True])
        assert o[0] == 7.0
    assert "tb_alloc(tb_ctx, 0, (int64_t)((((int64_t)m) - INT64_C(2))), sizeof(float))" in kernel.source
