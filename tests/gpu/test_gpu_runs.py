"""GPU-style schedules run on a GPU (where one is present; skipped elsewhere): each result
equals NumPy's and the CPU's run of the same schedule with a GPU's semantics."""

from __future__ import annotations

import numpy as np
import pytest

import lower
import schedule as te
import topi
from lower.backend.cuda.driver import present_arch
from lower.target import Target

from ..cuda_cases import RNG, Case, row_sum, tiled_matmul, vector_add, wmma_matmul

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.skipif(present_arch() is None, reason="no GPU here (or no cuda extra): nothing to run on")]


def _topi_conv2d() -> Case:
    a, w = RNG.random((1, 16, 14, 14), dtype=np.float32), RNG.random((32, 16, 3, 3), dtype=np.float32)
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    out = topi.nn.relu(topi.nn.conv2d_nchw(A, W, 1, 1, 1))
    with Target("cuda"):
        s = topi.cuda.schedule_conv2d_nchw([out])
    want = np.maximum(topi.testing.conv2d_nchw_python(a, w, 1, 1), 0)
    return Case(s, [A, W, out], [a, w, np.zeros(want.shape, np.float32)], 2, want)


CASES = {
    "vector add, symbolic length": lambda: vector_add(n=1000, symbolic=True),
    "shared-tile matmul": lambda: tiled_matmul(n=128, tile=16),
    "row sum, two levels of shuffles": lambda: row_sum(rows=64, cols=256, threads=64),
    "row sum, shuffles in a warp": lambda: row_sum(rows=64, cols=256, threads=32),
    "row sum, shared memory": lambda: row_sum(rows=64, cols=240, threads=48),
    "topi conv2d": _topi_conv2d,
    "tensor cores, float16 in float32": lambda: wmma_matmul(size=256),
    "tensor cores, B column-major": lambda: wmma_matmul(size=128, b_layout="col_major"),
    "tensor cores, int8 in int32": lambda: wmma_matmul(size=128, dtype="int8", acc="int32"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_gpu_computes_what_numpy_and_the_cpu_run_compute(name):
    tensor_cores = name.startswith("tensor cores")
    if tensor_cores and int(present_arch().removeprefix("sm_")) < 72:
        pytest.skip(f"{present_arch()} has no int8 and float16 tensor cores")
    case = CASES[name]()
    on_gpu = lower.build(case.schedule, case.args, "cuda", exact=case.exact)
    gpu = case.check(on_gpu, rtol=1e-4)
    assert on_gpu._gpu is not None, "the call ran on the CPU"
    cpu = case.check(lower.build(case.schedule, case.args, "c", exact=case.exact), rtol=1e-4)
    # Tensor cores sum a fragment's products in their own order.
    tolerance = 1e-4 if tensor_cores else 1e-5
    np.testing.assert_allclose(gpu, cpu, rtol=tolerance, atol=tolerance)
