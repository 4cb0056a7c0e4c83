"""tvm.contrib's small modules as TVM's tests use them: memoized reference data, what a CUDA
compute capability supports, cuDNN's absence, and every device name TVM knows."""

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from tebound.tvm.contrib import nvcc
from tebound.tvm.contrib.pickle_memoize import memoize


def test_memoize_computes_once_per_arguments():
    calls = []

    @memoize("tests.memoize.square")
    def square(x):
        calls.append(x)
        return x * x

    assert [square(3), square(3), square(4)] == [9, 9, 16] and calls == [3, 4]

    def reference(shape):
        @memoize("tests.memoize.reference")
        def data():
            calls.append(shape)
            return np.zeros(shape)
        return data()

    assert reference((2, 3)).shape == (2, 3) and reference((4,)).shape == (4,) and reference((2, 3)).shape == (2, 3)
    assert calls[2:] == [(2, 3), (4,)]
    with pytest.raises(TypeError, match="key is text"):
        memoize(3)


@pytest.mark.parametrize("version, fp16, int8, tensorcore, bf16", [
    ("5.2", False, False, False, False), ("5.3", True, False, False, False), ("6.1", True, True, False, False),
    ("7.0", True, True, True, False), ("8.6", True, True, True, True),
])
def test_compute_capabilities(version, fp16, int8, tensorcore, bf16):
    assert (nvcc.have_fp16(version), nvcc.have_int8(version), nvcc.have_tensorcore(version),
            nvcc.have_bf16(version)) == (fp16, int8, tensorcore, bf16)


def test_nvcc_compiles_to_ptx_with_nvrtc_and_no_cudnn():
    with pytest.raises(ValueError, match="major.minor"):
        nvcc.have_fp16("seven")
    major, minor = nvcc.get_cuda_version()
    assert major >= 12 and minor >= 0
    source = 'extern "C" __global__ void fill(float* a) { a[threadIdx.x] = 1.0f; }'
    ptx = nvcc.compile_cuda(source, arch=["-arch=sm_75"]).decode()
    assert ".target sm_75" in ptx and ".entry fill(" in ptx
    with pytest.raises(ValueError, match="only target_format='ptx'"):
        nvcc.compile_cuda(source, target_format="cubin")
    # The target's arch answers for tensor cores; with neither version nor target, the GPU here.
    assert nvcc.have_tensorcore(target=tvm.target.Target("cuda -arch=sm_70"))
    assert not nvcc.have_tensorcore(target=tvm.target.Target("cuda -arch=sm_61"))
    assert nvcc.have_tensorcore() == (tvm.cuda().compute_version is not None
                                      and int(tvm.cuda().compute_version.split(".")[0]) >= 7)
    assert tvm.cpu().compute_version is None
    assert tvm.contrib.cudnn.exists() is False


@pytest.mark.parametrize("name", ["sdaccel", "aocl", "hexagon", "webgpu", "ext_dev", "vulkan", "cuda"])
def test_every_tvm_device_name_gives_a_device_that_is_not_here(name):
    if name == "cuda" and tvm.cuda().exist:
        pytest.skip("a CUDA GPU is here")
    dev = tvm.device(name, 0)
    assert not dev.exist and not tvm.testing.device_enabled(name)
    assert tvm.device("stackvm").exist
