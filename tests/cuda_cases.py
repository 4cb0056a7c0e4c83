"""GPU-style schedules the CUDA tests share (source, runner, GPU), each with its call's arrays
and NumPy's answer, so that every build of them is checked against NumPy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import schedule as te

RNG = np.random.default_rng(0)


@dataclass
class Case:
    """A schedule, what ``build`` takes, the call's arguments (arrays and scalars; the output
    zero-filled), where the output is among them, and NumPy's output."""

    schedule: te.Schedule
    args: list[Any]
    inputs: list[Any]
    out: int
    want: np.ndarray
    #: The bound mode to build in (None: the default).
    exact: bool | None = None

    def fresh(self) -> list[Any]:
        """The call's arguments, arrays copied (the output full of NaN, or of the type's least
        integer, so that a build that writes nothing fails the comparison)."""
        out = [a.copy() if isinstance(a, np.ndarray) else a for a in self.inputs]
        kind = out[self.out].dtype
        out[self.out] = np.full_like(out[self.out], np.nan if kind.kind == "f" else np.iinfo(kind).min)
        return out

    def check(self, f: Any, rtol: float = 1e-5) -> np.ndarray:
        """Call *f* and compare the output with NumPy's; the output."""
        arrays = self.fresh()
        f(*arrays)
        np.testing.assert_allclose(arrays[self.out], self.want, rtol=rtol, atol=rtol)
        return arrays[self.out]


def bind_blocks(s: te.Schedule, axis: Any, stage: Any, factor: int) -> None:
    """*axis* of *stage* split by *factor*: the outer loop on blockIdx.x, the inner on threadIdx.x."""
    bx, tx = s[stage].split(axis, factor=factor)
    s[stage].bind(bx, te.thread_axis("blockIdx.x"))
    s[stage].bind(tx, te.thread_axis("threadIdx.x"))


def vector_add(n: int = 1024, factor: int = 64, symbolic: bool = False) -> Case:
    """TVM's tutorial: C = A + B, blocks of *factor* threads (the length a variable if *symbolic*)."""
    length = te.var("n") if symbolic else n
    A, B = te.placeholder((length,), name="A"), te.placeholder((length,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    bind_blocks(s, C.op.axis[0], C, factor)
    a, b = RNG.random((2, n), dtype=np.float32)
    return Case(s, [A, B, C, *([length] if symbolic else [])],
                [a, b, np.zeros(n, np.float32), *([n] if symbolic else [])], 2, a + b)


def row_sum(rows: int = 16, cols: int = 128, threads: int = 32) -> Case:
    """A cross-thread reduction: each block sums a row, its *threads* splitting the columns."""
    A = te.placeholder((rows, cols), name="A")
    k = te.reduce_axis((0, cols), name="k")
    B = te.compute((rows,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k, factor=threads)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(ki, te.thread_axis("threadIdx.x"))
    a = RNG.random((rows, cols), dtype=np.float32)
    return Case(s, [A, B], [a, np.zeros(rows, np.float32)], 1, a.sum(axis=1))


def tiled_matmul(n: int = 64, tile: int = 8, loader_on_x: bool = False) -> Case:
    """Shared-memory tiles of A loaded by the block's threads, a local accumulator. With
    *loader_on_x*, the tile's loads are all bound to threadIdx.x (tile^2 of them, where the
    block launches tile x tile threads): the consumer then runs under ``threadIdx.x < tile``."""
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    CL = s.cache_write(C, "local")
    bi, ti = s[C].split(C.op.axis[0], factor=tile)
    bj, tj = s[C].split(C.op.axis[1], factor=tile)
    s[C].reorder(bi, bj, ti, tj)
    for axis, tag in ((bi, "blockIdx.y"), (bj, "blockIdx.x"), (ti, "threadIdx.y"), (tj, "threadIdx.x")):
        s[C].bind(axis, te.thread_axis(tag))
    s[CL].compute_at(s[C], tj)
    ko, _ = s[CL].split(CL.op.reduce_axis[0], factor=tile)
    s[AA].compute_at(s[CL], ko)
    fused = s[AA].fuse(*AA.op.axis)
    if loader_on_x:
        s[AA].bind(fused, te.thread_axis("threadIdx.x"))
    else:
        ty, tx = s[AA].split(fused, factor=tile)
        s[AA].bind(ty, te.thread_axis("threadIdx.y"))
        s[AA].bind(tx, te.thread_axis("threadIdx.x"))
    a, b = RNG.random((2, n, n), dtype=np.float32)
    return Case(s, [A, B, C], [a, b, np.zeros((n, n), np.float32)], 2, a @ b)


def two_kernels(n: int = 256) -> Case:
    """B = A * 2, then C = B reversed + 1: two kernels with the global array B between them."""
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2, name="B")
    C = te.compute((n,), lambda i: B[n - 1 - i] + 1, name="C")
    s = te.create_schedule(C.op)
    for t in (B, C):
        bind_blocks(s, t.op.axis[0], t, 32)
    a = np.arange(n, dtype=np.float32)
    return Case(s, [A, C], [a, np.zeros(n, np.float32)], 1, a[::-1] * 2 + 1)


def wmma_intrinsics(shape: tuple[int, int, int] = (16, 16, 16), dtype: str = "float16", acc: str = "float32",
                    b_layout: str = "row_major") -> dict[str, Any]:
    """Tensor intrinsics over fragments of *shape* (m, n, k), declared as a user declares them:
    loads of A and B (B stored k-major, or n-major where *b_layout* is ``col_major``) from
    memory with any row stride, the multiply-add, and the accumulator's store."""
    m, n, k = shape

    def load(rows: int, cols: int, scope: str, layout: str) -> Any:
        src = te.placeholder((rows, cols), dtype, name="src")
        frag = te.compute((rows, cols), lambda i, j: src[i, j], name="frag")
        mem = te.decl_buffer(src.shape, dtype, "mem", strides=[te.var("ld"), 1], scope="shared",
                             offset_factor=1)
        reg = te.decl_buffer(frag.shape, dtype, "reg", scope=scope, offset_factor=rows * cols)

        def body(ins: Any, outs: Any) -> Any:
            return te.call_intrin("handle", "tir.tvm_load_matrix_sync", outs[0].data, m, n, k,
                                  outs[0].elem_offset // (rows * cols), ins[0].access_ptr("r"),
                                  ins[0].strides[0], layout)
        return te.decl_tensor_intrin(frag.op, body, binds={src: mem, frag: reg})

    a = load(m, k, "wmma.matrix_a", "row_major")
    b = load(*((n, k) if b_layout == "col_major" else (k, n)), "wmma.matrix_b", b_layout)
    x = te.placeholder((m, k), dtype, name="x")
    y = te.placeholder((n, k) if b_layout == "col_major" else (k, n), dtype, name="y")
    r = te.reduce_axis((0, k), name="r")
    z = te.compute((m, n), lambda i, j: te.sum(
        x[i, r].astype(acc) * (y[j, r] if b_layout == "col_major" else y[r, j]).astype(acc), axis=r), name="z")
    fx = te.decl_buffer(x.shape, dtype, "fx", scope="wmma.matrix_a", offset_factor=m * k)
    fy = te.decl_buffer(y.shape, dtype, "fy", scope="wmma.matrix_b", offset_factor=n * k)
    fz = te.decl_buffer(z.shape, acc, "fz", scope="wmma.accumulator", offset_factor=m * n)

    def mma(ins: Any, outs: Any) -> Any:
        bx, by = ins
        bz = outs[0]
        index = bz.elem_offset // (m * n)
        fill = te.call_intrin("handle", "tir.tvm_fill_fragment", bz.data, m, n, k, index, 0.0)
        update = te.call_intrin("handle", "tir.tvm_mma_sync", bz.data, index, bx.data, bx.elem_offset // (m * k),
                                by.data, by.elem_offset // (n * k), bz.data, index)
        return update, fill, update
    gemm = te.decl_tensor_intrin(z.op, mma, binds={x: fx, y: fy, z: fz})

    frag = te.placeholder((m, n), acc, name="frag")
    out = te.compute((m, n), lambda i, j: frag[i, j], name="out")
    reg = te.decl_buffer(frag.shape, acc, "reg", scope="wmma.accumulator", offset_factor=m * n)
    mem = te.decl_buffer(out.shape, acc, "mem", strides=[te.var("ld"), 1], offset_factor=1)

    def store(ins: Any, outs: Any) -> Any:
        return te.call_intrin("handle", "tir.tvm_store_matrix_sync", ins[0].data, m, n, k,
                              ins[0].elem_offset // (m * n), outs[0].access_ptr("w"), outs[0].strides[0],
                              "row_major")
    return {"a": a, "b": b, "gemm": gemm, "store": te.decl_tensor_intrin(out.op, store, binds={frag: reg, out: mem})}


def wmma_matmul(size: int = 64, shape: tuple[int, int, int] = (16, 16, 16), dtype: str = "float16",
                acc: str = "float32", b_layout: str = "row_major", warps: int = 2, tensorize: bool = True,
                lanes: int = 32) -> Case:
    """C = A B on tensor cores: each block computes a (warps x m) x n tile of C, one warp (32
    threads of threadIdx.x, all calling the same intrinsics) per m rows; A's and B's tiles go
    through shared memory, loaded by the block's threads (*lanes* of threadIdx.x), then into
    fragments. Without *tensorize*, the same loops computed element by element."""
    m, n, k = shape
    A = te.placeholder((size, size), dtype, name="A")
    B = te.placeholder((size, size), dtype, name="B")
    r = te.reduce_axis((0, size), name="r")
    col = b_layout == "col_major"
    C = te.compute((size, size), lambda i, j: te.sum(
        A[i, r].astype(acc) * (B[j, r] if col else B[r, j]).astype(acc), axis=r), name="C")
    s = te.create_schedule(C.op)
    AS, BS = s.cache_read(A, "shared", [C]), s.cache_read(B, "shared", [C])
    AF, BF = s.cache_read(AS, "wmma.matrix_a", [C]), s.cache_read(BS, "wmma.matrix_b", [C])
    CF = s.cache_write(C, "wmma.accumulator")
    i, j = C.op.axis
    bi, wi = s[C].split(i, factor=warps * m)
    wi, ii = s[C].split(wi, factor=m)
    bj, jj = s[C].split(j, factor=n)
    s[C].reorder(bi, bj, wi, ii, jj)
    for axis, tag in ((bi, "blockIdx.x"), (bj, "blockIdx.y"), (wi, "threadIdx.y")):
        s[C].bind(axis, te.thread_axis(tag))
    s[CF].compute_at(s[C], wi)
    ci, cj = CF.op.axis
    ko, ki = s[CF].split(CF.op.reduce_axis[0], factor=k)
    s[CF].reorder(ko, ci, cj, ki)
    for fragment in (AF, BF):
        s[fragment].compute_at(s[CF], ko)
    for tile in (AS, BS):  # loaded by all the block's threads
        s[tile].compute_at(s[CF], ko)
        rest, tx = s[tile].split(s[tile].fuse(*tile.op.axis), factor=lanes)
        _, ty = s[tile].split(rest, factor=warps)
        s[tile].bind(ty, te.thread_axis("threadIdx.y"))
        s[tile].bind(tx, te.thread_axis("threadIdx.x"))
    if tensorize:
        intrinsics = wmma_intrinsics(shape, dtype, acc, b_layout)
        s[AF].tensorize(AF.op.axis[0], intrinsics["a"])
        s[BF].tensorize(BF.op.axis[0], intrinsics["b"])
        s[CF].tensorize(ci, intrinsics["gemm"])
        s[C].tensorize(ii, intrinsics["store"])
    if dtype == "float16":
        a = RNG.random((size, size)).astype(np.float16)
        b = RNG.random((size, size)).astype(np.float16)
    else:
        a = RNG.integers(-128 if dtype == "int8" else 0, 128, (size, size)).astype(dtype)
        b = RNG.integers(-128 if dtype == "int8" else 0, 128, (size, size)).astype(dtype)
    want = a.astype(acc) @ (b.T if col else b).astype(acc)
    return Case(s, [A, B, C], [a, b, np.zeros((size, size), acc)], 2, want)
