"""CUDA source of GPU-style schedules: written as TVM's CUDA code, compiled by NVRTC (where the
cuda extra is installed; conftest compiles every CUDA build), refused by name where CUDA cannot
express the schedule, and the CPU run of the same build compared with NumPy."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import lower
import schedule as te
from lower.backend.cuda import module as cuda_module
from lower.backend.cuda import nvrtc
from lower.backend.cuda.split import HostAccessError
from lower.errors import LoweringError
from lower.target import Target

from ..cuda_cases import bind_blocks, row_sum, tiled_matmul, two_kernels, vector_add
from ..ports.test_tvm_lower_warp_memory import _warps_of_64

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
needs_nvrtc = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC is not installed (pip install '.[cuda]')")


def test_vector_add_reads_as_tvms_cuda_code():
    case = vector_add()
    f = lower.build(case.schedule, case.args, "cuda", name="myadd")
    source = f.imported_modules[0].get_source()
    assert 'extern "C" __global__ void __launch_bounds__(64) myadd_kernel(float* __restrict__ A, ' \
           'float* __restrict__ B, float* __restrict__ C) {' in source
    assert "C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (A[" in source
    assert f.get_source() == source and "int32_t tb_main(" in f.get_source("c")
    case.check(f)


def test_the_tutorials_vector_add_with_a_symbolic_length_is_the_cuda_guides_listing():
    case = vector_add(n=100, symbolic=True)
    f = lower.build(case.schedule, case.args, "cuda", name="myadd")
    source = f.imported_modules[0].get_source()
    kernel = source[source.index('extern "C"'):]
    with open(__file__.rsplit("/tests/", 1)[0] + "/docs/guide/cuda.md") as readme:
        listing = readme.read().split("```c\n", 1)[1].split("```", 1)[0]
    assert kernel.strip() == listing.strip()
    case.check(f)


def test_shared_memory_barriers_and_a_local_accumulator():
    case = tiled_matmul()
    f = lower.build(case.schedule, case.args, "cuda")
    source = f.imported_modules[0].get_source()
    assert "__shared__ float A_shared[64];" in source and "float C_local[1];" in source
    assert source.count("__syncthreads();") == 2  # before the tile is overwritten, and after it is loaded
    assert "__launch_bounds__(64)" in source
    case.check(f)


@pytest.mark.parametrize(("threads", "shuffles"), [(32, True), (16, True), (128, True), (24, False)])
def test_a_cross_thread_reduction_of_a_power_of_two_of_lanes_shuffles_and_else_goes_through_shared_memory(
        threads, shuffles):
    case = row_sum(cols=threads * 4, threads=threads)
    f = lower.build(case.schedule, case.args, "cuda")
    source = f.imported_modules[0].get_source()
    assert ("__shfl_down_sync(" in source) == shuffles
    assert bool(re.search(rf"__shared__ float red_buf0\w*\[{threads}\];", source)) == (not shuffles)
    width = min(threads, 32)
    if shuffles:  # halving the distance: 16, 8, 4, 2, 1 within a warp
        steps = [int(x) for x in re.findall(rf"__shfl_down_sync\(mask, red_buf0, (\d+), {width}\)", source)]
        assert steps == [width >> k for k in range(1, width.bit_length())]
    if threads > 32:  # then the warps' results, through shared memory: 4 warps, steps 2 and 1
        assert f"__shared__ float red_buf1[{threads // 32}];" in source
        steps = [int(x) for x in re.findall(rf"__shfl_down_sync\(mask, red_buf0, (\d+), {threads // 32}\)", source)]
        assert steps == [2, 1]
    case.check(f)


@needs_nvrtc
@pytest.mark.parametrize("make", [vector_add, row_sum, tiled_matmul])
def test_the_ptx_has_an_entry_per_kernel_and_nvrtc_no_warning(make):
    case = make()
    f = lower.build(case.schedule, case.args, "cuda")
    module = f.imported_modules[0]
    ptx = module.get_source("ptx")
    assert ".target sm_80" in ptx
    assert module.entry_names == ["default_function_kernel"]
    assert ".visible .entry default_function_kernel(" in ptx
    assert module.ptx().log == ""
    case.check(f)


def test_two_kernels_are_named_in_launch_order():
    case = two_kernels()
    f = lower.build(case.schedule, case.args, "cuda")
    assert f.imported_modules[0].entry_names == ["default_function_kernel", "default_function_kernel_1"]
    case.check(f)


def test_more_than_1024_threads_per_block_is_refused_by_name():
    case = vector_add(n=4096, factor=2048)
    with pytest.raises(LoweringError, match=r"2048 threads per block .*at most 1024"):
        lower.build(case.schedule, case.args, "cuda")


def test_the_targets_thread_limit_is_the_one_checked():
    case = vector_add(factor=512)
    f = lower.build(case.schedule, case.args, "cuda")
    assert "__launch_bounds__(512)" in f.imported_modules[0].get_source()
    case.check(f)
    with pytest.raises(LoweringError, match=r"512 threads per block .*at most 256"):
        lower.build(case.schedule, case.args, Target("cuda -max_num_threads=256"))


def _shared_tile(floats: int):
    """Each block copies *floats* elements of A into shared memory and writes them back doubled."""
    A = te.placeholder((4 * floats,), name="A")
    B = te.compute((4 * floats,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, "shared", [B])
    bx, tx = s[B].split(B.op.axis[0], factor=floats)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[AS].compute_at(s[B], bx)
    xo, xi = s[AS].split(AS.op.axis[0], nparts=128)
    s[AS].bind(xo, te.thread_axis("threadIdx.x"))
    txo, txi = s[B].split(tx, nparts=128)
    s[B].bind(txo, te.thread_axis("threadIdx.x"))
    return s, [A, B]


def test_shared_memory_over_the_limit_is_refused_naming_the_arrays():
    s, args = _shared_tile(12 * 1024)  # 48 KiB: the limit itself
    f = lower.build(s, args, "cuda")
    assert "__shared__ float A_shared[12288];" in f.imported_modules[0].get_source()
    a = np.arange(4 * 12 * 1024, dtype=np.float32)
    b = np.zeros_like(a)
    f(a, b)
    np.testing.assert_array_equal(b, a * 2)
    s, args = _shared_tile(12 * 1024 + 128)
    with pytest.raises(LoweringError, match=r"needs 49664 bytes of shared memory per block \(A.shared 49664 B\); "
                                            r"the target allows 49152"):
        lower.build(s, args, "cuda")
    s, args = _shared_tile(4 * 1024)
    with pytest.raises(LoweringError, match="the target allows 8192"):
        lower.build(s, args, Target("cuda -max_shared_memory_per_block=8192"))


def test_a_barrier_under_a_condition_on_the_thread_is_refused():
    """The shared tile is loaded by 64 threads of threadIdx.x while the block launches them
    for it, but the consumer runs under threadIdx.x < 8, around the loop with the barrier."""
    case = tiled_matmul(loader_on_x=True)
    with pytest.raises(LoweringError, match="barrier under a condition that differs between the threads"):
        lower.build(case.schedule, case.args, "cuda")


def test_a_stage_left_on_the_host_has_no_cuda_source_but_runs_on_the_cpu():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1, name="B")
    f = lower.build(te.create_schedule(B.op), [A, B], "cuda")
    with pytest.raises(HostAccessError, match="'B' is read or written outside every thread-bound loop.*bind"):
        f.imported_modules[0].get_source()
    a = np.arange(64, dtype=np.float32)
    b = np.zeros(64, np.float32)
    f(a, b)
    np.testing.assert_array_equal(b, a + 1)


def test_without_nvrtc_the_source_is_written_and_compiling_names_the_extra(monkeypatch):
    case = vector_add()
    with monkeypatch.context() as patch:  # undone before conftest compiles the build
        patch.setattr(nvrtc, "_nvrtc", lambda: None)
        cuda_module._compiled.cache_clear()
        f = lower.build(case.schedule, case.args, "cuda")
        assert "__global__" in f.imported_modules[0].get_source()
        with pytest.raises(LoweringError, match=r"needs NVRTC.*tebound\[cuda\]"):
            f.imported_modules[0].get_source("ptx")
        case.check(f)


def test_the_gpu_semantics_warning_points_at_the_cuda_source():
    from lower import target as target_module

    target_module._WARNED.discard("cuda")
    case = vector_add()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = lower.build(case.schedule, case.args, "cuda")
    assert any("CUDA source is in imported_modules[0]" in str(w.message) for w in caught)
    case.check(f)


def test_an_unknown_source_format_is_refused():
    case = vector_add()
    f = lower.build(case.schedule, case.args, "cuda")
    with pytest.raises(ValueError, match="'cu' and 'ptx'"):
        f.imported_modules[0].get_source("llvm")
    case.check(f)


def test_fast_intrinsics_only_when_asked():
    A = te.placeholder((256,), name="A")
    B = te.compute((256,), lambda i: te.exp(A[i]) + te.log(A[i] + 2), name="B")
    s = te.create_schedule(B.op)
    bind_blocks(s, B.op.axis[0], B, 64)
    plain = lower.build(s, [A, B], "cuda")
    fast = lower.build(s, [A, B], "cuda", fast_math=True)
    assert "expf(" in plain.get_source() and "__expf" not in plain.get_source() and "logf(" in plain.get_source()
    assert "__expf(" in fast.get_source() and "__logf(" in fast.get_source()
    a = np.random.default_rng(7).random(256, dtype=np.float32)
    for f in (plain, fast):  # the CPU run of each (fast math: to a few ulp)
        b = np.full(256, np.nan, np.float32)
        f(a, b)
        np.testing.assert_allclose(b, np.exp(a) + np.log(a + 2), rtol=1e-5)


def _vectorized(lanes: int, shift: int = 0, dtype: str = "float32"):
    """C[i] = A[i + shift] * 2 + B[i], each thread computing *lanes* neighbours in a vectorized loop."""
    n = 1024
    A = te.placeholder((n + shift,), name="A", dtype=dtype)
    B = te.placeholder((n,), name="B", dtype=dtype)
    C = te.compute((n,), lambda i: A[i + shift] * 2 + B[i], name="C")
    s = te.create_schedule(C.op)
    bx, rest = s[C].split(C.op.axis[0], factor=64 * lanes)
    tx, v = s[C].split(rest, factor=lanes)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[C].vectorize(v)
    return s, [A, B, C]


@pytest.mark.parametrize(("lanes", "dtype", "vtype", "ptx_load"), [
    (2, "float32", "float2", "ld.global.nc.v2.f32"), (4, "float32", "float4", "ld.global.nc.v4.f32"),
    (2, "float16", "half2", "ld.global.nc.v2.u16")])
def test_a_vectorized_loop_is_one_vector_store_of_vector_loads(lanes, dtype, vtype, ptx_load):
    s, args = _vectorized(lanes, dtype=dtype)
    f = lower.build(s, args, "cuda")
    source = f.imported_modules[0].get_source()
    assert source.count(f"const {vtype} tb_vec") == 2 and f"*({vtype}*)(C + " in source
    assert "for (" not in source.split('extern "C"')[1]
    if nvrtc.available():
        assert ptx_load in f.imported_modules[0].get_source("ptx")
    a, b = np.random.default_rng(3).random((2, 1024)).astype(dtype)
    c = np.zeros(1024, dtype)
    f(a, b, c)
    np.testing.assert_array_equal(c, a * np.array(2, dtype) + b)


def test_a_read_off_the_lane_boundary_stays_scalar():
    """A[i + 1] does not start on a multiple of 4: it is read element by element, while B and
    the store still go as vectors."""
    s, args = _vectorized(4, shift=1)
    f = lower.build(s, args, "cuda")
    source = f.imported_modules[0].get_source()
    assert source.count("const float4 tb_vec") == 1 and "*(float4*)(C + " in source
    a = np.random.default_rng(4).random(1025, dtype=np.float32)
    b = np.random.default_rng(5).random(1024, dtype=np.float32)
    c = np.zeros(1024, np.float32)
    f(a, b, c)
    np.testing.assert_array_equal(c, a[1:] * 2 + b)


def test_warp_memory_lives_in_registers_and_is_read_through_shuffles():
    """Each thread reads its right neighbour in the warp: lane (i + 1) % 32 of the warp holds it."""
    s, A, B = _warps_of_64(lambda A, i: A[i // 32 * 32 + (i + 1) % 32])
    args = [A, B]
    f = lower.build(s, args, "cuda")
    source = f.imported_modules[0].get_source()
    assert "float A_warp[2];" in source and "__shared__" not in source
    assert "A_warp[ax0_outer] = A[" in source
    assert re.search(r"__shfl_sync\(__activemask\(\), A_warp\[i_inner_outer\], tb_floormod_int32\("
                     r"\(\(\(int\)threadIdx.x\) \+ 1\), 32\), 32\)", source)
    a = np.arange(128, dtype=np.float32)
    b = np.zeros(128, np.float32)
    f(a, b)
    i = np.arange(128)
    np.testing.assert_array_equal(b, a[i // 32 * 32 + (i + 1) % 32])


def test_warp_memory_read_under_a_lane_condition_stays_in_shared_memory():
    """Even lanes read their neighbour, odd lanes their own element, each in one branch of a
    select: a shuffle in a branch would run in half the lanes only."""
    def read(A, i):
        return te.if_then_else(i % 2 == 0, A[i // 32 * 32 + (i + 1) % 32], A[i] * 2)
    s, A, B = _warps_of_64(read)
    args = [A, B]
    # Faithful bounds: the whole block of A in the warp buffer (exact mode leaves out the
    # element no lane reads, and a buffer that is not a whole number of lanes stays shared).
    f = lower.build(s, args, "cuda", exact=False)
    source = f.imported_modules[0].get_source()
    assert "__shfl_sync" not in source
    assert "__shared__ float A_warp[64];" in source
    a = np.arange(128, dtype=np.float32)
    b = np.full(128, -1.0, np.float32)
    f(a, b)
    i = np.arange(128)
    np.testing.assert_array_equal(b, np.where(i % 2 == 0, a[i // 32 * 32 + (i + 1) % 32], a * 2))


@pytest.mark.parametrize("dtype", ["int8", "int64"])
def test_bit_counts_and_the_newer_math_functions_in_cuda_count_in_the_operands_width(dtype):
    n = 64
    A, F = te.placeholder((n,), dtype, name="A"), te.placeholder((n,), "float32", name="F")
    B = te.compute((n,), lambda i: te.clz(A[i]) * 100 + te.popcount(A[i]).astype("int32"), name="B")
    C = te.compute((n,), lambda i: te.atan2(F[i], 0.5) + te.ldexp(F[i], A[i] % 4) + te.asinh(F[i]), name="C")
    s = te.create_schedule([B.op, C.op])
    for t in (B, C):
        bx, tx = s[t].split(t.op.axis[0], factor=32)
        s[t].bind(bx, te.thread_axis("blockIdx.x"))
        s[t].bind(tx, te.thread_axis("threadIdx.x"))
    f = lower.build(s, [A, F, B, C], "cuda")
    source = f.imported_modules[0].get_source()
    width = np.iinfo(dtype).bits
    assert ("__clzll((long long)(uint64_t)(" if width == 64 else "(__clz((int)(uint8_t)(") in source
    assert "atan2f(" in source and "ldexpf(" in source and "asinhf(" in source
    rng = np.random.default_rng(4)
    a = rng.integers(-128, 127, n).astype(dtype)
    a[:3] = [0, -1, 1]
    x = rng.uniform(-1, 1, n).astype("float32")
    b, c = np.full(n, -1, "int32"), np.full(n, np.nan, "float32")
    f(a, x, b, c)
    bits_of = [int(v) & ((1 << width) - 1) for v in a]
    np.testing.assert_array_equal(b, [(width - v.bit_length()) * 100 + bin(v).count("1") for v in bits_of])
    np.testing.assert_allclose(c, np.arctan2(x, 0.5) + np.ldexp(x, a % 4) + np.arcsinh(x), rtol=1e-5, atol=1e-6)


def test_a_padded_shared_copy_whose_loop_the_c_target_cuts_keeps_its_barriers():
    """autotvm's conv2d template for CUDA with its fallback configuration (every thread extent 1):
    the copy into shared memory is the innermost loop and tests the padding, so the C target cuts
    it where the tests change; the cut copies share their body, barrier included, and every
    copy must still run in phases."""
    data = te.placeholder((1, 4, 5, 5), name="data")
    kernel = te.placeholder((4, 4, 3, 3), name="kernel")
    pad = te.compute((1, 4, 7, 7), lambda n, c, y, x: te.if_then_else(
        te.all(y >= 1, y < 6, x >= 1, x < 6), data[n, c, y - 1, x - 1], 0.0), name="pad")
    rc, ry, rx = te.reduce_axis((0, 4), "rc"), te.reduce_axis((0, 3), "ry"), te.reduce_axis((0, 3), "rx")
    conv = te.compute((1, 4, 5, 5), lambda n, f, y, x: te.sum(
        pad[n, rc, y + ry, x + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]), name="conv")
    s = te.create_schedule(conv.op)
    s[pad].compute_inline()
    local = s.cache_write(conv, "local")
    shared = [s.cache_read(pad, "shared", [local]), s.cache_read(kernel, "shared", [local])]
    n, f, y, x = s[conv].op.axis
    tags = ("z", "y", "x")
    for axis, tag in zip((f, y, x), tags):
        outer, inner = s[conv].split(axis, factor=1)
        s[conv].bind(outer, te.thread_axis(f"blockIdx.{tag}"))
        s[conv].bind(inner, te.thread_axis(f"threadIdx.{tag}"))
    s[local].compute_at(s[conv], s[conv].leaf_iter_vars[-1])
    rco, rci = s[local].split(s[local].op.reduce_axis[0], factor=1)
    s[local].reorder(rco, *s[local].op.reduce_axis[1:], rci, *s[local].op.axis)
    for cache in shared:
        s[cache].compute_at(s[local], s[local].op.reduce_axis[2])
        fused = s[cache].fuse(*s[cache].op.axis)
        for tag in tags:
            outer, fused = s[cache].split(fused, nparts=1)
            s[cache].bind(outer, te.thread_axis(f"threadIdx.{tag}"))
    f = lower.build(s, [data, kernel, conv], "cuda")
    assert f.imported_modules[0].get_source().count("__syncthreads()") >= 2
    rng = np.random.default_rng(5)
    d, k = rng.uniform(-1, 1, (1, 4, 5, 5)).astype("float32"), rng.uniform(-1, 1, (4, 4, 3, 3)).astype("float32")
    out = np.full((1, 4, 5, 5), np.nan, "float32")
    f(d, k, out)
    padded = np.pad(d, ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))  # 1, 4, 5, 5, 3, 3
    np.testing.assert_allclose(out, np.einsum("ncyxij,fcij->nfyx", windows, k), rtol=1e-5, atol=1e-5)
