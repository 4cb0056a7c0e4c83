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
python -m pytest -n 0 -q -p no:cacheprovider tests/gpu tests/lower/test_cuda_source.py tests/lower/test_cuda_runner.py
python benchmarks/bench_cuda.py
