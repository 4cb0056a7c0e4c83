"""Tensor-core schedules: the wmma intrinsics a user declares and tensorizes with, computed on
the CPU (C and Python) loop by loop, and written as ``nvcuda::wmma`` CUDA that NVRTC compiles
to PTX's ``wmma.mma.sync``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import lower
from lower.backend.cuda.driver import present_arch
from lower.errors import LoweringError
from lower.ir.stmt import Buffer, BufferView, Evaluate, seq
from lower.passes.tensor_core import expand_wmma, infer_fragments
from lower.target import Target
from schedule import arith
from schedule.ir.expr import Call, StringImm

from ..cuda_cases import wmma_matmul

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

VARIANTS = {
    "float16 in float32": {},
    "B column-major": {"b_layout": "col_major"},
    "int8 in int32": {"dtype": "int8", "acc": "int32"},
    "32x8x16": {"shape": (32, 8, 16)},
    "8x32x16, float16 accumulators": {"shape": (8, 32, 16), "acc": "float16"},
}


# The Python target runs every lane of every warp in Python: two variants, at 32x32.
CASES = [(v, t) for v in VARIANTS for t in ("c", "cuda")] + [("float16 in float32", "python"),
                                                             ("int8 in int32", "python")]


@pytest.mark.parametrize("variant, target", CASES)
def test_a_tensorized_matmul_computes_numpys_product_and_the_untensorized_schedules_bits(variant, target):
    options = {**VARIANTS[variant], **({"size": 32} if target == "python" else {})}
    case = wmma_matmul(**options)
    f = lower.build(case.schedule, case.args, target, exact=case.exact)
    got = case.check(f, rtol=1e-2 if options.get("acc") == "float16" else 1e-5)
    # The same loops without tensorize, on the same inputs and target (cuda's CPU run is C's):
    # the same sums in the same order.
    plain = wmma_matmul(tensorize=False, **options)
    arrays = case.fresh()
    lower.build(plain.schedule, plain.args, "python" if target == "python" else "c", exact=False)(*arrays)
    if target == "cuda" and present_arch() is not None:  # ran on tensor cores, which sum in their own order
        np.testing.assert_allclose(got, arrays[case.out], rtol=1e-2 if options.get("acc") == "float16" else 1e-4)
    else:
        np.testing.assert_array_equal(got, arrays[case.out])


def _source(case, target="cuda"):
    """The CUDA module of *case*'s build, whose run is first compared with NumPy."""
    f = lower.build(case.schedule, case.args, target, exact=case.exact)
    case.check(f, rtol=1e-2)
    return f.imported_modules[0]


def test_the_cuda_source_declares_fragments_and_calls_wmma_as_tvm_writes_them():
    module = _source(wmma_matmul())
    text = module.get_source()
    assert "#include <mma.h>" in text
    for line in [
        "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> C_wmma_accumulator[1];",
        "nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> "
        "A_shared_wmma_matrix_a[1];",
        "nvcuda::wmma::fill_fragment(C_wmma_accumulator[0], 0.0f);",
        "nvcuda::wmma::load_matrix_sync(B_shared_wmma_matrix_b[0], ((_Float16 *)B_shared + (0)), 16);",
        "nvcuda::wmma::mma_sync(C_wmma_accumulator[0], A_shared_wmma_matrix_a[0], B_shared_wmma_matrix_b[0], "
        "C_wmma_accumulator[0]);",
    ]:
        assert line in text, line
    store = [x.strip() for x in text.splitlines() if "store_matrix_sync" in x]
    assert len(store) == 1 and store[0].startswith("nvcuda::wmma::store_matrix_sync(((float *)C + (")
    assert store[0].endswith(", C_wmma_accumulator[0], 64, nvcuda::wmma::mem_row_major);")
    # The tiles are filled by every thread of the block: a barrier before the fragments read them.
    body = text[text.index("__global__"):]
    assert body.index("__syncthreads();") < body.index("load_matrix_sync")
    assert "[[maybe_unused]]" not in body  # the shared tiles are read, through the loads' pointers
    ptx = module.get_source("ptx")
    assert ".entry default_function_kernel(" in ptx
    assert len(re.findall(r"wmma\.mma\.sync\.aligned\.row\.row\.m16n16k16\.f32\.f32", ptx)) == 4


@pytest.mark.parametrize("options, fragment, instruction", [
    ({"b_layout": "col_major"}, "nvcuda::wmma::matrix_b, 16, 16, 16, half, nvcuda::wmma::col_major",
     r"wmma\.mma\.sync\.aligned\.row\.col\.m16n16k16\.f32\.f32"),
    ({"dtype": "int8", "acc": "int32"}, "nvcuda::wmma::accumulator, 16, 16, 16, int>",
     r"wmma\.mma\.sync\.aligned\.row\.row\.m16n16k16\.s32\.s8\.s8\.s32"),
    ({"shape": (8, 32, 16), "acc": "float16"}, "nvcuda::wmma::accumulator, 8, 32, 16, half>",
     r"wmma\.mma\.sync\.aligned\.row\.row\.m8n32k16\.f16\.f16"),
])
def test_layouts_types_and_shapes_reach_the_fragments_and_the_ptx(options, fragment, instruction):
    case = wmma_matmul(**options)
    module = _source(case)
    assert fragment in module.get_source()
    assert re.search(instruction, module.get_source("ptx"))


def test_the_lowered_function_syncs_the_shared_tiles_before_the_fragment_loads():
    case = wmma_matmul()
    text = str(lower.lower(case.schedule, case.args, exact=False))
    fills = text.index("produce A.shared")
    sync = text.index('tvm_storage_sync("shared")', fills)
    assert sync < text.index("tvm_load_matrix_sync(A.shared.wmma.matrix_a")
    assert 'tvm_access_ptr("float16", A.shared, ' in text


def test_cuda_refuses_what_a_warp_cannot_run_and_the_cpu_still_computes_it():
    odd = wmma_matmul(shape=(8, 8, 8))
    with pytest.raises(LoweringError, match=r"fragment 'C.wmma.accumulator' is 8x8x8; CUDA's wmma multiplies "
                                            r"16x16x16, 32x8x16, 8x32x16"):
        _source(odd)
    odd.check(lower.build(odd.schedule, odd.args, "c", exact=False))

    half_warp = wmma_matmul(lanes=16)
    with pytest.raises(LoweringError, match="launches 16 threads along threadIdx.x; bind a loop of extent 32"):
        _source(half_warp)
    half_warp.check(lower.build(half_warp.schedule, half_warp.args, "c", exact=False))

    plain = wmma_matmul(tensorize=False)
    with pytest.raises(LoweringError, match="'C.wmma.accumulator' in wmma.accumulator memory is read or written "
                                            "element by element"):
        _source(plain)
    plain.check(lower.build(plain.schedule, plain.args, "c", exact=False))

    case = wmma_matmul()
    with pytest.raises(LoweringError, match="need sm_70 or later, but they are built for sm_61"):
        lower.build(case.schedule, case.args, Target("cuda -arch=sm_61"), exact=False)
    int8 = wmma_matmul(dtype="int8", acc="int32")
    with pytest.raises(LoweringError, match="need sm_72 or later, but they are built for sm_70"):
        lower.build(int8.schedule, int8.args, Target("cuda -arch=sm_70"), exact=False)
    f = lower.build(int8.schedule, int8.args, Target("cuda -arch=sm_75"), exact=False)
    assert "sm_75" in f.imported_modules[0].get_source("ptx")
    int8.check(f)


def test_exact_mode_tensorizes_as_faithful_mode_does():
    """The shared tiles' exact regions are in blockIdx, whose range the analyzer knows: they are
    the 16x16 tiles the intrinsics take (they were selects on blockIdx, refused, before), and
    the kernel is faithful mode's."""
    case = wmma_matmul()
    exact = lower.lower(case.schedule, case.args, exact=True)
    assert str(exact) == str(lower.lower(case.schedule, case.args, exact=False))
    case.check(lower.build(case.schedule, case.args, "c", exact=True))


def _frag(name, scope, dtype="float16", size=256):
    buf = Buffer(name, dtype, (arith.const(size),), scope)
    return buf, BufferView(buf, name, (arith.const(size),), (arith.const(1),), arith.const(0))


def _call(name, *args):
    return Evaluate(Call("handle", name, tuple(StringImm(a) if isinstance(a, str) else
                                              a if not isinstance(a, (int, float)) else arith.const(a)
                                              for a in args)))


@pytest.mark.parametrize("build_calls, message", [
    (lambda a, b, c, mem: [_call("tvm_fill_fragment", a, 16, 16, 16, 0, 0.0)],
     "fills an accumulator, not 'a' in wmma.matrix_a memory"),
    (lambda a, b, c, mem: [_call("tvm_load_matrix_sync", a, 16, 16, 16, 0, mem, 16, "row_major"),
                           _call("tvm_load_matrix_sync", a, 32, 8, 16, 0, mem, 16, "row_major")],
     "fragment 'a' is 32x8x16 here but 16x16x16 in another call"),
    (lambda a, b, c, mem: [_call("tvm_load_matrix_sync", a, 16, 16, 16, 0, mem, 16, "diagonal")],
     "argument 7 is the memory layout, 'row_major' or 'col_major'"),
    (lambda a, b, c, mem: [_call("tvm_load_matrix_sync", a, 16, 0, 16, 0, mem, 16, "row_major")],
     "argument 2 \\(the fragment's n\\) must be a positive constant"),
    (lambda a, b, c, mem: [_call("tvm_fill_fragment", c, 16, 16, 16, 0)], "takes 6 arguments, got 5"),
    (lambda a, b, c, mem: [_call("tvm_fill_fragment", c, 16, 16, 16, 0, 0.0),
                           _call("tvm_load_matrix_sync", a, 16, 16, 16, 0, mem, 16, "row_major"),
                           _call("tvm_mma_sync", c, 0, a, 0, b, 0, c, 0)],
     "fragment 'b' is never filled or loaded"),
    (lambda a, b, c, mem: [_call("tvm_fill_fragment", c, 16, 16, 16, 0, 0.0),
                           _call("tvm_mma_sync", c, 0, c, 0, b, 0, c, 0)],
     "argument 2 must be a fragment in wmma.matrix_a memory, not 'c' in wmma.accumulator"),
    (lambda a, b, c, mem: [_call("tvm_fill_fragment", mem, 16, 16, 16, 0, 0.0)],
     "argument 0 must be a buffer in wmma.matrix_a, wmma.matrix_b or wmma.accumulator memory"),
])
def test_wrong_wmma_calls_are_refused_by_name(build_calls, message):
    (_, a), (_, b), (_, c) = _frag("a", "wmma.matrix_a"), _frag("b", "wmma.matrix_b"), _frag("c", "wmma.accumulator",
                                                                                             "float32")
    _, mem = _frag("mem", "shared")
    body = seq(*build_calls(a, b, c, mem))
    with pytest.raises(LoweringError, match=message):
        infer_fragments(body)
    with pytest.raises(LoweringError, match=message):
        expand_wmma(body)


def test_a_fragment_loads_only_memory_of_its_own_type():
    (_, a), (_, mem) = _frag("a", "wmma.matrix_a"), _frag("mem", "shared", "float32")
    with pytest.raises(LoweringError, match="fragment 'a' holds float16 but the memory it reads \\('mem'\\) holds "
                                            "float32"):
        expand_wmma(_call("tvm_load_matrix_sync", a, 16, 16, 16, 0, mem, 16, "row_major"))
