"""TOPI's tensor-core matrix products on CUDA (the schedule TVM's ``dense_tensorcore`` and
``batch_matmul_tensorcore`` share, and the pieces the convolutions' schedules share with it):
``C[.., i, j] = sum_k A[.., i, k] B[.., j, k]`` in fragments of ``m x n x k``, each warp of a
block multiplying its tiles, the operands staged through shared memory into fragments, the
accumulators back through shared memory.

TVM's schedules take their tiling from AutoTVM (tuned, or TopHub's reference); without either
they take each knob's first value, as here: one warp a block, one fragment a warp, a chunk of
one ``k`` step, no padding, no vector. The knobs are keyword arguments."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi.cuda.tensor_intrin import (
    intrin_wmma_gemm,
    intrin_wmma_load_matrix_A,
    intrin_wmma_load_matrix_W,
    intrin_wmma_store_matrix,
)
from topi.traverse import new_schedule, traverse_inline
from topi.utils import get_const_tuple

#: The fragment shapes (m, n, k) by the multiple of 8 the shapes allow, in TVM's order of preference
#: for matrix products (its convolutions prefer 16 x 16 x 16 first).
FRAGMENTS = ((32, 8, 16), (16, 16, 16), (8, 32, 16))
WARP = 32


def fragment_shape(op: str, rows: int, reduce: int, cols: int, dtype: str,
                   preference: tuple[tuple[int, int, int], ...] = FRAGMENTS) -> tuple[int, int, int]:
    """The first fragment shape of *preference* that tiles ``rows x cols`` over ``reduce``.

    :raises ValueError: for a dtype tensor cores do not take, or shapes no fragment tiles."""
    if dtype not in ("float16", "int8", "uint8"):
        raise ValueError(f"topi.cuda.{op}: tensor cores take float16, int8 or uint8 operands here, not {dtype}")
    for m, n, k in preference:
        if rows % m == 0 and cols % n == 0 and reduce % k == 0:
            return m, n, k
    raise ValueError(f"topi.cuda.{op}: the shape (rows {rows}, reduction {reduce}, columns {cols}) must be a "
                     "multiple of (32, 16, 8), (16, 16, 16) or (8, 16, 32)")


def schedule_tagged(name: str, outs: Any, tag: str, place: Any, knobs: dict[str, int]) -> te.Schedule:
    """The schedule *name* of *outs*: *place* (with *knobs*) schedules the operation tagged
    *tag*; the injective stages around it are inlined."""
    s, tensors = new_schedule(f"cuda.{name}", outs)
    traverse_inline(s, tensors[0].op, lambda op: place(s, op.output(0), **knobs) if op.tag == tag else None)
    return s


def spread_over_warps(s: te.Schedule, stage: Any, fused: Any, vec: int, block_row_warps: int,
                      block_col_warps: int, threads: tuple[Any, Any, Any]) -> None:
    """*fused* (a loop of *stage*) as vectors of *vec* lanes, over a warp's 32 threads
    (``threadIdx.x``), then the block's warps by rows (``.y``) and columns (``.z``)."""
    thread_x, thread_y, thread_z = threads
    t, vi = s[stage].split(fused, factor=vec)
    t, tx = s[stage].split(t, factor=WARP)
    t, ty = s[stage].split(t, factor=block_row_warps)
    _, tz = s[stage].split(t, factor=block_col_warps)
    for axis, thread in ((tz, thread_z), (ty, thread_y), (tx, thread_x)):
        s[stage].bind(axis, thread)
    s[stage].vectorize(vi)


def schedule_matmul_on_tensor_cores(s: te.Schedule, C: Tensor, block_row_warps: int = 1, block_col_warps: int = 1,
                                    warp_row_tiles: int = 1, warp_col_tiles: int = 1, chunk: int = 1,
                                    offset: int = 0, offsetCS: int = 0, vec: int = 1) -> None:
    """Stage ``C[.., i, j] = sum_k A[.., i, k] B[.., j, k]`` (a leading batch axis or none)
    through shared memory and fragments: blocks of ``block_row_warps x block_col_warps`` warps,
    each multiplying ``warp_row_tiles x warp_col_tiles`` fragments, ``chunk`` steps of ``k`` per
    shared tile; batches over ``blockIdx.z``."""
    A, B = s[C].op.input_tensors
    batched = len(C.shape) == 3
    *_, rows, cols = get_const_tuple(C.shape)
    in_dim = get_const_tuple(A.shape)[-1]
    m, n, k = fragment_shape("schedule_batch_matmul_tensorcore" if batched else "schedule_dense_tensorcore",
                             rows, in_dim, cols, A.dtype)
    AS, BS = s.cache_read(A, "shared", [C]), s.cache_read(B, "shared", [C])
    AF, BF = s.cache_read(AS, "wmma.matrix_a", [C]), s.cache_read(BS, "wmma.matrix_b", [C])
    CF = s.cache_write(C, "wmma.accumulator")
    CS = s.cache_read(CF, "shared", [C])
    if C.op not in s.outputs:  # an epilogue (bias, relu) is the output: C goes inline into it
        s[C].compute_inline()
        C = s.outputs[0].output(0)
    as_align = bs_align = chunk * k + offset
    cs_align = warp_col_tiles * block_col_warps * n + offsetCS
    block_x, block_y = te.thread_axis("blockIdx.x"), te.thread_axis("blockIdx.y")
    thread_x, thread_y, thread_z = (te.thread_axis(f"threadIdx.{a}") for a in "xyz")

    def batch_and(axes: Any) -> tuple[list[Any], Any, Any]:
        """The stage's batch axis (in a list, empty without one) and its two matrix axes."""
        return list(axes[:-2]), axes[-2], axes[-1]

    # the output: a block's tile, its elements spread over the block's threads
    bz, b, o = batch_and(C.op.axis)
    block_i, bc = s[C].split(b, factor=m * warp_row_tiles * block_row_warps)
    block_j, oc = s[C].split(o, factor=n * warp_col_tiles * block_col_warps)
    s[C].reorder(*bz, block_i, block_j, bc, oc)
    s[C].bind(block_i, block_x)
    s[C].bind(block_j, block_y)
    for axis in bz:
        s[C].bind(axis, te.thread_axis("blockIdx.z"))
    threads = (thread_x, thread_y, thread_z)
    spread_over_warps(s, C, s[C].fuse(bc, oc), vec, block_row_warps, block_col_warps, threads)

    # the accumulators stored to shared memory, a warp's fragments at a time
    s[CS].compute_at(s[C], block_j)
    bs, bb, oo = batch_and(CS.op.axis)
    s[CS].storage_align(bb, cs_align - 1, cs_align)
    bb, bbi = s[CS].split(bb, factor=m)
    oo, ooi = s[CS].split(oo, factor=n)
    bb, bbii = s[CS].split(bb, factor=warp_row_tiles)
    oo, ooii = s[CS].split(oo, factor=warp_col_tiles)
    s[CS].reorder(*bs, bb, oo, bbii, ooii, bbi, ooi)
    # (TVM's batched schedule binds the warps' rows and columns the other way round)
    s[CS].bind(bb, thread_z if batched else thread_y)
    s[CS].bind(oo, thread_y if batched else thread_z)

    # a warp's multiply-accumulate over k, chunk steps per shared tile
    s[CF].compute_at(s[CS], oo)
    bs, warp_i, warp_j = batch_and(CF.op.axis)
    warp_i, ii = s[CF].split(warp_i, factor=m)
    warp_j, jj = s[CF].split(warp_j, factor=n)
    (kk,) = CF.op.reduce_axis
    kk, k_in = s[CF].split(kk, factor=k)
    ko, ki = s[CF].split(kk, factor=chunk)
    s[CF].reorder(*bs, ko, ki, warp_i, warp_j, ii, jj, k_in)

    # the fragments of A and B, loaded at each k step
    s[AF].compute_at(s[CF], ki)
    bs, ab, ai = batch_and(AF.op.axis)
    ab, ab_in = s[AF].split(ab, factor=m)
    ai, ai_in = s[AF].split(ai, factor=k)
    s[AF].reorder(*bs, ab, ai, ab_in, ai_in)
    s[BF].compute_at(s[CF], ki)
    bs, bo, bi = batch_and(BF.op.axis)
    bo, bo_in = s[BF].split(bo, factor=n)
    bi, bi_in = s[BF].split(bi, factor=k)
    s[BF].reorder(*bs, bo, bi, bo_in, bi_in)

    # the shared tiles, loaded by all the block's threads, rows padded to the alignment
    for stage, align in ((AS, as_align), (BS, bs_align)):
        s[stage].compute_at(s[CF], ko)
        _, xo, yo = batch_and(stage.op.axis)
        s[stage].storage_align(xo, align - 1, align)
        spread_over_warps(s, stage, s[stage].fuse(xo, yo), vec, block_row_warps, block_col_warps, threads)

    in_dtype = A.dtype
    shape = (m, n, k)
    a_gemm = te.placeholder((m, k), name="AL_gemm", dtype=in_dtype)
    b_gemm = te.placeholder((n, k), name="BL_gemm", dtype=in_dtype)
    k_gemm = te.reduce_axis((0, k), name="k_gemm")
    c_gemm = te.compute((m, n), lambda i, j: te.sum(
        a_gemm[i, k_gemm].astype(CF.dtype) * b_gemm[j, k_gemm].astype(CF.dtype), axis=k_gemm), name="CL_compute")
    af_stride, bf_stride, cf_stride = [k, 1], [k, 1], [warp_col_tiles * n, 1]
    s[AF].tensorize(ab_in, intrin_wmma_load_matrix_A(af_stride, [as_align, 1], shape, "row_major", (m, k), (m, k),
                                                     in_dtype))
    s[BF].tensorize(bo_in, intrin_wmma_load_matrix_W(bf_stride, [bs_align, 1], shape, "col_major", (n, k), (n, k),
                                                     in_dtype))
    s[CF].tensorize(ii, intrin_wmma_gemm(a_gemm, b_gemm, c_gemm, af_stride, bf_stride, cf_stride, shape))
    s[CS].tensorize(bbi, intrin_wmma_store_matrix([cs_align, 1], cf_stride, shape, CF.dtype, (m, n), (m, n)))
