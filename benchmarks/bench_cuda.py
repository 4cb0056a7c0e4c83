"""Matmul, conv2d, softmax and a tensor-core matmul built for CUDA, timed on the GPU (run by hand where one is
present: ``python benchmarks/bench_cuda.py``; ``--check`` builds and compiles everything and
runs nothing, for a machine without a GPU).

Each kernel is checked against NumPy, then timed with ``time_evaluator`` (arrays on the GPU,
launches waited for per batch). Beside them: cuBLAS through CuPy for the matmuls, and TVM's own
kernel for the same matmul schedule, written by ``tvm_cuda_kernels.py`` where TVM is installed
(its wheel is too large to send to a GPU machine) and timed here the same way.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import schedule as te
import topi
from lower import build
from lower.backend.cuda.driver import cuda_driver, present_arch
from lower.backend.cuda.nvrtc import DEFAULT_ARCH, compile_ptx
from lower.errors import LoweringError
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


def tvm_ptx(folder: Path, name: str, arch: str) -> tuple[dict, str] | str:
    """TVM's kernel *name* from *folder* (written by tvm_cuda_kernels.py) and its PTX for
    *arch*: by nvcc where it is on the PATH, else by NVRTC with the CCCL headers TVM's source
    includes (``nvidia-cuda-cccl``); or why there is none."""
    source, meta = folder / f"{name}.cu", folder / f"{name}.json"
    if not source.is_file():
        return f"no {source} (run benchmarks/tvm_cuda_kernels.py where TVM is installed)"
    launch = json.loads(meta.read_text())
    if shutil.which("nvcc"):
        done = subprocess.run(["nvcc", "--ptx", f"-arch={arch}", "-o", "-", str(source)], capture_output=True,
                              text=True, check=False)
        return (launch, done.stdout) if done.returncode == 0 else f"nvcc failed: {done.stderr.strip()[:200]}"
    cccl = tuple(str(d) for d in Path(importlib.import_module("nvidia").__path__[0]).glob("*/include/cccl"))
    try:
        return launch, compile_ptx(source.read_text(), arch, include=cccl).text
    except LoweringError as err:
        return f"NVRTC failed: {str(err)[:200]}"


def time_ptx(ptx: str, launch: dict, arrays: list, out: int, number: int = 20, repeat: int = 5) -> float:
    """Run the kernel ``launch["entry"]`` of *ptx* over *arrays* (copied to the GPU, the
    output copied back into ``arrays[out]``) and its mean time in ms per launch, measured as
    ``time_evaluator`` measures ours: *number* launches, then a wait, *repeat* times."""
    d = cuda_driver()

    def value(result):
        if result[0] != d.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"CUDA driver: {result[0]}")
        return result[1] if len(result) > 1 else None
    value(d.cuInit(0))
    value(d.cuCtxSetCurrent(value(d.cuDevicePrimaryCtxRetain(value(d.cuDeviceGet(0))))))
    function = value(d.cuModuleGetFunction(value(d.cuModuleLoadData(ptx.encode() + b"\0")), launch["entry"].encode()))
    pointers = [value(d.cuMemAlloc(a.nbytes)) for a in arrays]
    try:
        for p, a in zip(pointers, arrays):
            value(d.cuMemcpyHtoD(p, np.ascontiguousarray(a).ctypes.data, a.nbytes))
        params = (tuple(pointers), (None,) * len(pointers))

        def run(times: int) -> None:
            for _ in range(times):
                value(d.cuLaunchKernel(function, *launch["grid"], *launch["block"], 0, 0, params, 0))
            value(d.cuCtxSynchronize())
        run(1)
        value(d.cuMemcpyDtoH(arrays[out].ctypes.data, pointers[out], arrays[out].nbytes))
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            run(number)
            times.append((time.perf_counter() - start) / number)
        return float(np.mean(times)) * 1e3
    finally:
        for p in pointers:
            d.cuMemFree(p)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="build and compile only (no GPU needed)")
    parser.add_argument("--tvm-kernels", default=".tvm_kernels", type=Path,
                        help="TVM's kernels from tvm_cuda_kernels.py (default .tvm_kernels)")
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
    tvm_matmul = tvm_ptx(args.tvm_kernels, "matmul", arch or DEFAULT_ARCH)
    if isinstance(tvm_matmul, str):
        print(f"| TVM matmul, same schedule | n/a: {tvm_matmul} | | |")
    elif arch is None:
        print(f"| TVM {tvm_matmul[0]['tvm']} matmul, same schedule | (compiled: {tvm_matmul[0]['entry']}) | | |")
    else:
        launch, ptx = tvm_matmul
        _, _, arrays, out, want, flops = matmul(launch["n"])
        ms = time_ptx(ptx, launch, arrays, out)
        error = float(np.max(np.abs(arrays[out] - want) / np.maximum(np.abs(want), 1)))
        print(f"| TVM {launch['tvm']} matmul, same schedule | {ms:.3f} | {flops / ms / 1e6:.0f} | {error:.2e} |")
    if arch is not None:
        for dtype in ("float32", "float16"):
            ms = cublas_ms(dtype=dtype)
            print(f"| cuBLAS matmul {dtype} (CuPy) | {'n/a' if ms is None else f'{ms:.3f}'} | "
                  f"{'' if ms is None else f'{2 * 1024 ** 3 / ms / 1e6:.0f}'} | |")


if __name__ == "__main__":
    main()
