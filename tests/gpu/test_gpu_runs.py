"""GPU-style schedules run on a GPU (where one is present; skipped elsewhere): each result
equals NumPy's and the CPU's run of the same schedule with a GPU's semantics."""

from __future__ import annotations

import numpy as np
import pytest

import lower
import schedule as te
import topi
from lower.backend.cuda.driver import present_arch
from lower.target import Target

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.skipif(present_arch() is None, reason="no GPU here (or no cuda extra): nothing to run on")]
RNG = np.random.default_rng(0)


def _bound(s, t, factor=64):
    fused = s[t].fuse(*t.op.axis)
    bx, tx = s[t].split(fused, factor=factor)
    s[t].bind(bx, te.thread_axis("blockIdx.x"))
    s[t].bind(tx, te.thread_axis("threadIdx.x"))


def _vector_add():
    n = te.var("n")
    A, B = te.placeholder((n,), name="A"), te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    _bound(s, C)
    a, b = RNG.random((2, 1000), dtype=np.float32)
    return s, [A, B, C, n], [a, b, np.zeros(1000, np.float32), 1000], 2, a + b


def _matmul():
    n = 128
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA, CL = s.cache_read(A, "shared", [C]), s.cache_write(C, "local")
    bi, ti = s[C].split(C.op.axis[0], factor=16)
    bj, tj = s[C].split(C.op.axis[1], factor=16)
    s[C].reorder(bi, bj, ti, tj)
    for axis, tag in ((bi, "blockIdx.y"), (bj, "blockIdx.x"), (ti, "threadIdx.y"), (tj, "threadIdx.x")):
        s[C].bind(axis, te.thread_axis(tag))
    s[CL].compute_at(s[C], tj)
    ko, _ = s[CL].split(CL.op.reduce_axis[0], factor=16)
    s[AA].compute_at(s[CL], ko)
    ty, tx = s[AA].split(s[AA].fuse(*AA.op.axis), factor=16)
    s[AA].bind(ty, te.thread_axis("threadIdx.y"))
    s[AA].bind(tx, te.thread_axis("threadIdx.x"))
    a, b = RNG.random((2, n, n), dtype=np.float32)
    return s, [A, B, C], [a, b, np.zeros((n, n), np.float32)], 2, a @ b


def _row_sum(threads=64, cols=256):
    """Two levels of shuffles (64 threads), one (32), or shared memory (48: not a power of two)."""
    A = te.placeholder((64, cols), name="A")
    k = te.reduce_axis((0, cols), name="k")
    B = te.compute((64,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k, factor=threads)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(ki, te.thread_axis("threadIdx.x"))
    a = RNG.random((64, cols), dtype=np.float32)
    return s, [A, B], [a, np.zeros(64, np.float32)], 1, a.sum(axis=1)


def _row_sum_in_a_warp():
    return _row_sum(threads=32)


def _row_sum_in_shared_memory():
    return _row_sum(threads=48, cols=240)


def _topi_conv2d():
    a, w = RNG.random((1, 16, 14, 14), dtype=np.float32), RNG.random((32, 16, 3, 3), dtype=np.float32)
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    out = topi.nn.relu(topi.nn.conv2d_nchw(A, W, 1, 1, 1))
    with Target("cuda"):
        s = topi.cuda.schedule_conv2d_nchw([out])
    want = np.maximum(topi.testing.conv2d_nchw_python(a, w, 1, 1), 0)
    return s, [A, W, out], [a, w, np.zeros(want.shape, np.float32)], 2, want


@pytest.mark.parametrize("make", [_vector_add, _matmul, _row_sum, _row_sum_in_a_warp, _row_sum_in_shared_memory,
                                  _topi_conv2d])
def test_the_gpu_computes_what_numpy_and_the_cpu_run_compute(make):
    s, args, arrays, out, want = make()
    on_gpu = lower.build(s, args, "cuda")
    gpu = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]
    on_gpu(*gpu)
    assert on_gpu._gpu is not None, "the call ran on the CPU"
    cpu = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]
    lower.build(s, args, "c")(*cpu)
    np.testing.assert_allclose(gpu[out], want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gpu[out], cpu[out], rtol=1e-5, atol=1e-5)
