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

    def fresh(self) -> list[Any]:
        """The call's arguments, arrays copied (the output full of NaN, so that a build that
        writes nothing fails the comparison)."""
        out = [a.copy() if isinstance(a, np.ndarray) else a for a in self.inputs]
        out[self.out] = np.full_like(out[self.out], np.nan)
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
