"""The GPU run of a CUDA build, its host part checked without a GPU: a stand-in for the driver
API keeps device memory in bytes and records every launch, so the test sees the copies, the
grid and block computed from the call's shapes, the kernels' parameters, and the frees."""

from __future__ import annotations

import ctypes
import importlib
import itertools

import numpy as np
import pytest

import lower
import schedule as te
from lower.backend.cuda import nvrtc
from lower.backend.cuda.runner import GpuRunner

from ..cuda_cases import Case, bind_blocks, two_kernels, vector_add

build_module = importlib.import_module("lower.build")  # the module: lower.build is the function
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.skipif(not nvrtc.available(), reason="NVRTC is not installed (pip install '.[cuda]')")]


class FakeDriver:
    """The driver functions GpuRunner calls, each returning ``(CUDA_SUCCESS, value)``."""

    class CUresult:
        CUDA_SUCCESS = 0

    def __init__(self) -> None:
        self.memory: dict[int, bytearray] = {}
        self.launches: list[tuple] = []
        self.loaded: list[bytes] = []
        self.copies_in = 0
        self.shared_bytes: list[int] = []
        self.sent: list[bytes] = []
        self.syncs = 0
        self._next = itertools.count(4096, 4096)

    def cuInit(self, flags): return (0,)
    def cuDeviceGet(self, k): return 0, k
    def cuDevicePrimaryCtxRetain(self, device): return 0, "ctx"
    def cuCtxSetCurrent(self, ctx): return (0,)
    def cuCtxSynchronize(self):
        self.syncs += 1
        return (0,)
    def cuModuleGetFunction(self, module, name): return 0, name.decode()

    def cuModuleLoadData(self, image):
        self.loaded.append(image)
        return 0, "module"

    def cuMemAlloc(self, nbytes):
        ptr = next(self._next)
        self.memory[ptr] = bytearray(nbytes)
        return 0, ptr

    def cuMemFree(self, ptr):
        del self.memory[ptr]
        return (0,)

    def cuMemcpyHtoD(self, ptr, host, nbytes):
        self.memory[ptr][:nbytes] = ctypes.string_at(host, nbytes)
        self.copies_in += 1
        self.sent.append(bytes(self.memory[ptr][:nbytes]))
        return (0,)

    def cuMemcpyDtoH(self, host, ptr, nbytes):
        ctypes.memmove(host, bytes(self.memory[ptr][:nbytes]), nbytes)
        return (0,)

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        self.launches.append((f, (gx, gy, gz), (bx, by, bz), params))
        self.shared_bytes.append(shared)
        return (0,)


def _runner(case: Case, driver: FakeDriver):
    """The build of *case* for "cuda" (its CPU run checked against NumPy) and a GpuRunner of it."""
    f = lower.build(case.schedule, case.args, "cuda")
    case.check(f)
    return f, GpuRunner(f.imported_modules[0], f._device_body, [f.lowered.buffers[t] for t in f.lowered.tensors],
                        driver)


def _arrays(case: Case) -> list[np.ndarray]:
    return [a for a in case.fresh() if isinstance(a, np.ndarray)]


def test_a_launch_takes_its_grid_from_the_call_shape_and_its_arrays_by_pointer():
    case = vector_add(n=1000, symbolic=True)
    driver = FakeDriver()
    f, run = _runner(case, driver)
    assert driver.loaded[0].startswith(b"//") and driver.loaded[0].endswith(b"\0")  # the PTX, terminated
    arrays = _arrays(case)
    sent = arrays[2].copy()
    run(arrays, {case.args[3]: 1000}, [False, False, True])
    ((name, grid, block, (values, types)),) = driver.launches
    assert name == "default_function_kernel"
    assert grid == (16, 1, 1) and block == (64, 1, 1)  # ceil(1000 / 64) blocks of 64
    assert types == (None, None, None, ctypes.c_int32) and values[3] == 1000
    # No kernel ran (a stand-in), so C comes back as it went: copied in, and out again.
    np.testing.assert_array_equal(arrays[2], sent)
    assert driver.memory == {}  # every allocation freed


def test_kernels_launch_in_order_with_a_global_array_between_them():
    case = two_kernels()
    driver = FakeDriver()
    _, run = _runner(case, driver)
    run(_arrays(case), {}, [False, True])
    names = [launch[0] for launch in driver.launches]
    assert names == ["default_function_kernel", "default_function_kernel_1"]
    first, second = (launch[3][0] for launch in driver.launches)  # (A, B) and (C, B): arguments first
    assert first[1] == second[1], "the second kernel reads the intermediate the first writes"
    assert len({first[0], first[1], second[0]}) == 3
    assert driver.memory == {}


def test_calls_and_their_timing_go_to_the_gpu_where_one_is_present(monkeypatch):
    """A build for "cuda" with a GPU present (here a stand-in) runs its calls there, and
    time_evaluator copies the arrays once and waits for each batch of launches at its end."""
    case = vector_add(n=300, factor=128, symbolic=True)
    case.check(lower.build(case.schedule, case.args, "cuda"))  # without a GPU: the CPU run
    driver = FakeDriver()
    monkeypatch.setattr(build_module, "present_arch", lambda: "sm_80")
    monkeypatch.setattr(build_module, "cuda_driver", lambda: driver)
    f = lower.build(case.schedule, case.args, "cuda")
    arrays = case.fresh()
    f(*arrays)
    assert f._gpu is not None and [launch[1] for launch in driver.launches] == [(3, 1, 1)]
    assert driver.copies_in == 3 and driver.syncs == 1
    result = f.time_evaluator(f.entry_name, number=5, repeat=2)(*arrays)
    assert len(result.results) == 2 and all(t >= 0 for t in result.results)
    assert len(driver.launches) == 1 + 1 + 2 * 5  # the call, the warm-up, two batches of five
    assert driver.copies_in == 6, "the timing copies the arrays in once"
    assert driver.syncs == 1 + 1 + 2
    assert driver.memory == {}
    with pytest.raises(TypeError, match="expected 4 arguments"):
        f(*arrays[:3])


def _reversed_through_shared(n: int) -> Case:
    """One block of 32 threads copies all of A (a symbolic size) into shared memory, then
    writes it back reversed and doubled."""
    length = te.var("n")
    A = te.placeholder((length,), name="A")
    B = te.compute((length,), lambda i: A[length - 1 - i] * 2, name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, "shared", [B])
    bo, rest = s[B].split(B.op.axis[0], nparts=1)
    to, _ = s[B].split(rest, nparts=32)
    s[B].bind(bo, te.thread_axis("blockIdx.x"))
    s[B].bind(to, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[B], bo)
    ao, _ = s[AS].split(AS.op.axis[0], nparts=32)
    s[AS].bind(ao, te.thread_axis("threadIdx.x"))
    a = np.arange(n, dtype=np.float32)
    return Case(s, [A, B, length], [a, np.zeros(n, np.float32), n], 1, a[::-1] * 2)


def test_shared_memory_of_a_symbolic_size_is_the_launchs_dynamic_shared_memory():
    case = _reversed_through_shared(100)
    driver = FakeDriver()
    f, run = _runner(case, driver)
    source = f.imported_modules[0].get_source()
    assert "extern __shared__ __align__(16) unsigned char tb_dynamic_shared[];" in source
    assert "float* A_shared = (float*)(tb_dynamic_shared + 0);" in source
    n = case.args[2]
    a, b = _arrays(case)
    run([a, b], {n: 100}, [False, True])
    assert driver.shared_bytes == [400]  # 100 floats, a multiple of 16 bytes
    run([a[:3], b[:3]], {n: 3}, [False, True])
    assert driver.shared_bytes[-1] == 16  # 12 bytes, rounded up to 16


def test_indices_are_32_bit_and_the_gpu_run_refuses_arrays_they_cannot_reach():
    case = vector_add(symbolic=True)
    driver = FakeDriver()
    f, run = _runner(case, driver)
    source = f.imported_modules[0].get_source()
    assert "int64_t" not in source.split('extern "C"')[1] and "C[((((int)blockIdx.x) * 64)" in source
    huge = np.broadcast_to(np.zeros(1, np.float32), (2**31,))  # 2^31 elements, no memory behind them
    with pytest.raises(lower.LoweringError, match=r"'A' has 2147483648 elements; .*fewer than 2\^31"):
        run([huge, huge, huge], {case.args[3]: 2**31}, [False, False, True])
    assert driver.memory == {} and driver.launches == []


def test_a_loop_left_on_the_host_launches_its_kernel_once_per_iteration():
    """Rows unbound (a host loop), columns bound: each row's kernel takes the row as a scalar."""
    A = te.placeholder((4, 256), name="A")
    B = te.compute((4, 256), lambda i, j: A[i, j] + 1, name="B")
    s = te.create_schedule(B.op)
    bind_blocks(s, B.op.axis[1], B, 64)
    a = np.random.default_rng(8).random((4, 256), dtype=np.float32)
    case = Case(s, [A, B], [a, np.zeros((4, 256), np.float32)], 1, a + 1)
    driver = FakeDriver()
    f, run = _runner(case, driver)
    assert "int32_t i)" in f.imported_modules[0].get_source()  # the host loop's variable, a kernel parameter
    run(_arrays(case), {}, [False, True])
    assert [launch[3][0][2] for launch in driver.launches] == [0, 1, 2, 3]
    assert {launch[1] for launch in driver.launches} == {(4, 1, 1)}


def test_a_strided_array_goes_to_the_gpu_as_its_elements_in_order():
    case = vector_add(n=256)
    driver = FakeDriver()
    _, run = _runner(case, driver)
    every_other = np.arange(512, dtype=np.float32)[::2]  # not contiguous
    run([every_other, every_other, np.zeros(256, np.float32)], {}, [False, False, True])
    assert driver.sent[0] == np.ascontiguousarray(every_other).tobytes()
