"""Matmul, conv2d, softmax and a tensor-core matmul built for CUDA, timed on the GPU (run by hand where one is
present: ``python benchmarks/bench_cuda.py``; ``--check`` builds and compiles everything and
runs nothing, for a machine without a GPU).

Each kernel is checked against NumPy, then timed with ``time_evaluator`` (arrays on the GPU,
launches waited for per batch). Beside them: cuBLAS through CuPy for the matmuls, and TVM's own
CUDA build of the same schedules where ``tvm`` (0.25+, built with CUDA) imports.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np

import schedule as te
import topi
from lower import build
from lower.backend.cuda.driver import present_arch
from lower.target import Target

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' schedules
from tests.cuda_cases import wmma_matmul  # noqa: E402

RNG = np.random.default_rng(0)


def matmul(n: int = 1024, tile: int = 16, step: int = 16):
    """Shared tiles of A and B per block, a local accumulator per thread (TVM's tutorial form)."""
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA, BB = s.cache_read(A, "shared", [C]), s.cache_read(B, "shared", [C])
    CL = s.cache_write(C, "local")
    bi, ti = s[C].split(C.op.axis[0], factor=tile)
    bj, tj = s[C].split(C.op.axis[1], factor=tile)
    s[C].reorder(bi, bj, ti, tj)
    for axis, tag in ((bi, "blockIdx.y"), (bj, "blockIdx.x"), (ti, "threadIdx.y"), (tj, "threadIdx.x")):
        s[C].bind(axis, te.thread_axis(tag))
    s[CL].compute_at(s[C], tj)
    ko, _ = s[CL].split(CL.op.reduce_axis[0], factor=step)
    for cache in (AA, BB):
        s[cache].compute_at(s[CL], ko)
        ty, tx = s[cache].split(s[cache].fuse(*cache.op.axis), factor=tile)
        _, ty = s[cache].split(ty, factor=tile)
        s[cache].bind(ty, te.thread_axis("threadIdx.y"))
        s[cache].bind(tx, te.thread_axis("threadIdx.x"))
    a, b = RNG.random((2, n, n), dtype=np.float32)
    return s, [A, B, C], [a, b, np.zeros((n, n), np.float32)], 2, a @ b, 2 * n ** 3


def conv2d():
    """ResNet's 56x56, 64 -> 64 channels 3x3 layer, with TOPI's cuda schedule."""
    a, w = RNG.random((1, 64, 56, 56), dtype=np.float32), RNG.random((64, 64, 3, 3), dtype=np.float32)
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    out = topi.nn.conv2d_nchw(A, W, 1, 1, 1)
    with Target("cuda"):
        s = topi.cuda.schedule_conv2d_nchw([out])
    want = topi.testing.conv2d_nchw_python(a, w, 1, 1)
    return s, [A, W, out], [a, w, np.zeros(want.shape, np.float32)], 2, want, 2 * 64 * 64 * 9 * 56 * 56


def softmax(rows: int = 4096, cols: int = 1024):
    x = RNG.random((rows, cols), dtype=np.float32)
    X = te.placeholder(x.shape, name="X")
    out = topi.nn.softmax(X)
    with Target("cuda"):
        s = topi.cuda.schedule_softmax(out)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return s, [X, out], [x, np.zeros_like(x)], 1, e / e.sum(axis=1, keepdims=True), 5 * rows * cols


def tensor_core_matmul(n: int = 1024):
    """float16 inputs, float32 sums, on tensor cores: the tests' wmma schedule (one 16x16
    fragment of C per warp, four warps per block)."""
    case = wmma_matmul(size=n, warps=4)
    return case.schedule, case.args, case.inputs, case.out, case.want, 2 * n ** 3


def cublas_ms(n: int = 1024, dtype: str = "float32") -> float | None:
    try:
        cp = importlib.import_module("cupy")
    except ImportError:
        return None
    a, b = (cp.random.random((n, n), dtype=cp.float32).astype(dtype) for _ in range(2))
    a @ b
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    best = float("inf")
    for _ in range(5):
        start.record()
        for _ in range(20):
            a @ b
        end.record()
        end.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, end) / 20)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="build and compile only (no GPU needed)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    arch = present_arch()
    if arch is None and not args.check:
        sys.exit("bench_cuda: no GPU here (or no cuda extra); --check builds and compiles without one")
    if arch is not None:
        subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"],
                       check=False)
    print("| kernel | ms | GFLOP/s | max error vs NumPy (relative above 1) |")
    print("|---|---|---|---|")
    for make in (matmul, conv2d, softmax, tensor_core_matmul):
        s, tensors, arrays, out, want, flops = make()
        f = build(s, tensors, "cuda", exact=False)
        module = f.imported_modules[0]
        module.ptx()  # compiles (NVRTC) or names what is missing
        if arch is None:
            print(f"| {make.__name__} | (built: {', '.join(module.entry_names)}) | | |")
            continue
        f(*arrays)
        error = float(np.max(np.abs(arrays[out] - want) / np.maximum(np.abs(want), 1)))
        ms = f.time_evaluator(f.entry_name, number=20, repeat=5)(*arrays).mean * 1e3
        print(f"| {make.__name__} | {ms:.3f} | {flops / ms / 1e6:.0f} | {error:.2e} |", flush=True)
    if arch is not None:
        for dtype in ("float32", "float16"):
            ms = cublas_ms(dtype=dtype)
            print(f"| cuBLAS matmul {dtype} (CuPy) | {'n/a' if ms is None else f'{ms:.3f}'} | "
                  f"{'' if ms is None else f'{2 * 1024 ** 3 / ms / 1e6:.0f}'} | |")


if __name__ == "__main__":
    main()
