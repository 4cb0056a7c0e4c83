#!/usr/bin/env bash
# Wheels the GPU machine lacks (it has Python 3.12, NumPy, CuPy and the CUDA packages, and no
# package registry): download them here into .gpu_wheels/ (ignored by git), then send that
# folder, and .tvm_kernels/ where TVM_PYTHON is set, with the working tree
# (carry=[".gpu_wheels", ".tvm_kernels"]); benchmarks/gpu_check.sh installs them from it.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip download -q --only-binary=:all: --python-version 3.12 \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    islpy networkx pytest pytest-xdist hypothesis -d .gpu_wheels
# The tensor-core header (crt/mma.h), in case that machine's CUDA wheels lack it; NVRTC falls
# back to its CUDA toolkit's headers where no wheel has them (see lower/backend/cuda/nvrtc.py).
python -m pip download -q --no-deps --only-binary=:all: --platform manylinux2014_x86_64 nvidia-cuda-crt -d .gpu_wheels
# The CCCL headers TVM's CUDA source includes, for NVRTC where that machine has no nvcc.
python -m pip download -q --no-deps --only-binary=:all: --platform manylinux2014_x86_64 nvidia-cuda-cccl -d .gpu_wheels
# TVM's kernel for bench_cuda.py's matmul schedule, where $TVM_PYTHON is a Python with TVM 0.25+.
if [ -n "${TVM_PYTHON:-}" ]; then
    "$TVM_PYTHON" benchmarks/tvm_cuda_kernels.py --out .tvm_kernels
fi
ls .gpu_wheels
