"""TVM's own CUDA kernel for bench_cuda.py's matmul schedule, written where TVM (0.25 or later,
whose pip wheel generates CUDA without a GPU) is installed, for bench_cuda.py to time on a GPU
beside ours.

Run it with a scratch environment's Python, outside the project's::

    python -m venv /tmp/tvm && /tmp/tvm/bin/pip install apache-tvm
    /tmp/tvm/bin/python benchmarks/tvm_cuda_kernels.py --out .tvm_kernels

It writes ``matmul.cu`` (TVM's source) and ``matmul.json`` (its entry, grid and block) into
``--out``, a folder git ignores; send it with the working tree to the GPU machine
(``benchmarks/gpu_check.sh`` passes it to bench_cuda.py). The schedule is bench_cuda.py's
``matmul`` in TVM's schedule language: 16x16 threads per block, each thread one element of C,
shared tiles of A and B per step of 16 along k, the sum in a register.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import tvm
from tvm import te

# TVM moved its schedulable TIR from tvm.tir to tvm.s_tir in 0.25.
tir = getattr(tvm, "s_tir", None) or tvm.tir


def matmul(n: int = 1024, tile: int = 16, step: int = 16) -> tuple[object, dict]:
    """The schedule, and how it launches."""
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    sch = tir.Schedule(te.create_prim_func([A, B, C]))
    block = sch.get_sblock("C") if hasattr(sch, "get_sblock") else sch.get_block("C")
    i, j, kk = sch.get_loops(block)
    bi, ti = sch.split(i, [None, tile])
    bj, tj = sch.split(j, [None, tile])
    ko, ki = sch.split(kk, [None, step])
    sch.reorder(bi, bj, ti, tj, ko, ki)
    for loop, tag in ((bi, "blockIdx.y"), (bj, "blockIdx.x"), (ti, "threadIdx.y"), (tj, "threadIdx.x")):
        sch.bind(loop, tag)
    sch.reverse_compute_at(sch.cache_write(block, 0, "local"), tj)
    for index in (0, 1):
        cache = sch.cache_read(block, index, "shared")
        sch.compute_at(cache, ko)
        _, ty, tx = sch.split(sch.fuse(*sch.get_loops(cache)[-2:]), [None, tile, tile])
        sch.bind(ty, "threadIdx.y")
        sch.bind(tx, "threadIdx.x")
    sch.decompose_reduction(block, ko)
    return sch.mod, {"grid": [n // tile, n // tile, 1], "block": [tile, tile, 1], "n": n}


def cuda_source(mod: object, arch: str) -> str:
    """TVM's CUDA source of *mod*: its compile callback is replaced, so no compiler is needed."""
    tvm.register_global_func("tvm_callback_cuda_compile", lambda code, target: b"", override=True)
    target = tvm.target.Target({"kind": "cuda", "arch": arch})
    lib = tvm.compile(mod, target=target)
    runtime = getattr(lib, "mod", lib)
    device = (getattr(runtime, "imports", None) or runtime.imported_modules)[0]
    return device.inspect_source() if hasattr(device, "inspect_source") else device.get_source()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=".tvm_kernels", help="folder to write into (default .tvm_kernels)")
    parser.add_argument("--arch", default="sm_90", help="the GPU's architecture (default sm_90, an H100's)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    mod, launch = matmul()
    source = cuda_source(mod, args.arch)
    entry = re.search(r"__global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(", source).group(1)
    (out / "matmul.cu").write_text(source)
    (out / "matmul.json").write_text(json.dumps({**launch, "entry": entry, "tvm": tvm.__version__}))
    print(f"TVM {tvm.__version__}: {entry} -> {out / 'matmul.cu'}")


if __name__ == "__main__":
    main()
