#!/usr/bin/env bash
# Everything that needs a GPU, in one go (run where one is at hand; a few minutes):
# the card and driver, the GPU tests and the CUDA tests beside them, then bench_cuda.py.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
if [ -d .gpu_wheels ]; then  # made by benchmarks/gpu_wheels.sh where a registry is at hand
    python -m pip install -q --no-index --find-links .gpu_wheels islpy networkx pytest pytest-xdist hypothesis
fi
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv || true
python -c "from lower.backend.cuda.driver import present_arch; print('arch', present_arch())"
has_mma='import os, sys; from lower.backend.cuda.nvrtc import header_dirs as h; sys.exit(not any(os.path.isfile(d + "/crt/mma.h") for d in h()))'
if [ -d .gpu_wheels ] && ! python -c "$has_mma"; then  # tensor cores need crt/mma.h
    python -m pip install -q --no-deps --no-index --find-links .gpu_wheels nvidia-cuda-crt
fi
if [ -d .gpu_wheels ] && ! command -v nvcc >/dev/null; then  # TVM's kernel source needs CCCL's headers
    python -m pip install -q --no-deps --no-index --find-links .gpu_wheels nvidia-cuda-cccl
fi
python -c "from lower.backend.cuda.nvrtc import header_dirs, nvrtc_version; print('nvrtc', nvrtc_version(), header_dirs())"
python -m pytest -n 0 -q -p no:cacheprovider tests/gpu tests/lower/test_cuda_source.py tests/lower/test_cuda_runner.py \
    tests/lower/test_tensor_core.py
python benchmarks/bench_cuda.py
