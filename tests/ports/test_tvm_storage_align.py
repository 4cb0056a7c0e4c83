"""TVM's storage_align tests (storage flattening, and the tiling case of the bound tests),
written anew: padded strides, the allocation they need, and builds equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import tebound.tvm as tvm
from bound import infer_bound
from lower import lower
from lower.passes.flatten import element_strides
from schedule.ir.arith import value_of

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])


@BOTH
def test_flatten_storage_align(exact):
    m, l = 8, 16
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")
    s = te.create_schedule(A2.op)
    s[A1].storage_align(A1.op.axis[0], 2, 1)
    text = str(lower(s, [A, A2], exact=exact))
    # Rows of 16 padded to 17 (17 = 1 mod 2): 17 * 8 elements.
    assert "allocate A1[float32 * 136]" in text and "A1[((i*17) + j)] = A[((i*16) + j)]" in text
    a = random((m, l), seed=1)
    (out,) = run(s, [A, A2], [a], exact)
    np.testing.assert_array_equal(out, a + 3)


@pytest.mark.parametrize(("sizes", "aligns", "expected"), [
    ((8, 16), {0: (2, 1)}, ([17, 1], 136)),
    ((4, 6, 10), {1: (4, 0)}, ([72, 12, 1], 288)),      # rows of 10 -> 12; planes of 6 * 12
    ((4, 6, 10), {0: (32, 0), 1: (4, 2)}, ([64, 10, 1], 256)),  # 10 is 2 mod 4 already; 60 -> 64
    ((5, 3), {1: (4, 3)}, ([9, 3], 45)),               # the innermost stride itself: 1 -> 3
])
def test_element_strides_by_hand(sizes, aligns, expected):
    steps, total = element_strides([te.const(n) for n in sizes], aligns)
    assert [value_of(x) for x in steps] == expected[0] and value_of(total) == expected[1]


@BOTH
def test_aligned_shared_tile_inside_a_gpu_loop(exact):
    n = 32
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] * 2, name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, "shared", [B])
    bx, tx = s[B].split(B.op.axis[0], factor=8)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[B], bx)
    s[AS].storage_align(AS.op.axis[0], 33, 1)
    text = str(lower(s, [A, B], exact=exact))
    # Rows of 32 padded to 34 (34 = 1 mod 33); 8 rows.
    assert "allocate A.shared[float32 * 272]" in text
    a = random((n, n), seed=2)
    (out,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(out, a * 2)


def test_bound_tile_mod():
    """TVM's test_bound_tile_mod: the aligned shared cache's bounds are not disturbed."""
    factor, padding = 16, 8
    M = N = 2 * factor
    A = te.placeholder((N, M), name="A", dtype="float16")
    C = te.compute((N, M), lambda n, m: A[n, m], name="C")
    s = te.create_schedule(C.op)
    s.cache_write(C, "local")
    n, m = C.op.axis
    bn, bm, ni, mi = s[C].tile(n, m, factor, factor)
    nio, nii = s[C].split(ni, 2)
    s[C].fuse(nii, mi)
    C_shared = s.cache_write(C, "shared")
    bn, bm, ni, mi = C_shared.op.axis
    s[C_shared].storage_align(ni, factor * 2, padding)
    n, m = s[C].op.axis
    bn, bm, ni, mi = s[C].tile(n, m, factor, factor)
    s[C].set_scope("global")
    niio, niii = s[C].split(ni, 8)
    s[C_shared].compute_at(s[C], niio)
    for exact in (False, True):
        bounds = infer_bound(s, exact=exact)
        # The cache's third axis is the outer half of the first tiling's rows: 8 rows of C
        # per iteration of niio, two per element of that axis (TVM 0.12: 32 rows, 16). The
        # document's TVM relaxes the fused set to the whole axis (8).
        assert value_of(bounds[s.stages[2].op.axis[2]].extent) == (4 if exact else 8)
        a = random((N, M), dtype="float16", seed=3)
        (out,) = run(s, [A, C], [a], exact)
        np.testing.assert_array_equal(out, a)
    # TVM v0.13 (tebound.tvm's bounds): its floormod interval keeps the two rows apart.
    assert value_of(tvm.te.schedule.InferBound(s)[s.stages[2].op.axis[2]].extent) == 4


def test_storage_align_rejects_bad_arguments():
    A = te.placeholder((8, 8), name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j], name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=2)
    with pytest.raises(te.ScheduleError, match="not an axis of the stage's compute"):
        s[B].storage_align(xo, 4, 0)
    with pytest.raises(TypeError, match="factor must be an integer"):
        s[B].storage_align(B.op.axis[0], 2.5, 0)
    with pytest.raises(te.ScheduleError, match="must be positive"):
        s[B].storage_align(B.op.axis[0], 0, 0)
    assert not s[B].iter_var_attrs


@pytest.mark.parametrize("channels", [3, 4, 7])
def test_channels_packed_into_blocks_and_back_compute_only_the_block_they_need(channels):
    """TVM's test_bound_block: channels packed four to a block (the last block padded with
    zeros), then unpacked. The packed stage's block axis covers what the unpacking reads: all
    four lanes, or only three when there are three channels: TVM v0.13's floormod rule (and
    exact mode) see it; the document's TVM computes all four."""
    block = 4
    chunks = -(-channels // block)
    tail = channels % block
    A = te.placeholder((1, channels, 3, 2), name="A")

    def pack(n, c, h, w, b):
        pad = te.all(c == chunks - 1, b >= tail) if tail else te.const(False)
        return te.if_then_else(pad, te.const(0, A.dtype), A[n, c * block + b, h, w])

    packed = te.compute((1, chunks, 3, 2, block), pack, name="packed")
    back = te.compute((1, channels, 3, 2), lambda n, c, h, w: packed[n, c // block, h, w, c % block], name="back")
    s = te.create_schedule(back.op)
    a = random((1, channels, 3, 2), seed=channels)
    for exact in (False, True):
        bounds = infer_bound(s, exact=exact)
        assert value_of(bounds[packed.op.axis[4]].extent) == (min(channels, block) if exact else block)
        (out,) = run(s, [A, back], [a], exact)
        np.testing.assert_array_equal(out, a)
    assert value_of(tvm.te.schedule.InferBound(s)[packed.op.axis[4]].extent) == min(channels, block)
    f = tvm.build(s, [A, back], "llvm")
    out = tvm.nd.array(np.full(a.shape, np.nan, dtype="float32"))
    f(tvm.nd.array(a), out)
    np.testing.assert_array_equal(out.numpy(), a)
