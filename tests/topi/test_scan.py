"""Cumulative sums and products (``topi.cumsum``, ``topi.cumprod``) against NumPy's, under the
generic and CUDA schedules, inclusive and exclusive, in the output types asked for; and
``topi.utils.get_shape``."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target
from tebound import tvm
from topi.testing import compare_numpy_tvm
from topi.utils import get_shape

RNG = np.random.default_rng(23)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _exclusive(running: np.ndarray, axis: int, identity: int) -> np.ndarray:
    out = np.roll(running, 1, axis=axis)
    out[(slice(None),) * axis + (0,)] = identity
    return out


@pytest.mark.parametrize("style", ["generic", "cuda"])
def test_running_sums_and_products_equal_numpys(style):
    x = RNG.standard_normal((4, 3, 5))
    n = RNG.integers(-9, 10, (6, 7)).astype("int32")
    big = RNG.integers(1 << 30, (1 << 31) - 1, 9).astype("int32")
    ops = {"generic": (topi.cumsum, topi.cumprod, topi.generic.schedule_extern),
           "cuda": (topi.cuda.cumsum, topi.cuda.cumprod, topi.cuda.schedule_scan)}[style]
    total, product, schedule = ops
    target = "cuda" if style == "cuda" else "llvm"
    cases = [
        ([x], np.cumsum(x), lambda a: total(a)), ([x], np.cumsum(x, axis=1), lambda a: total(a, 1)),
        ([x], np.cumprod(x, axis=-1), lambda a: product(a, -1)),
        ([n], np.cumsum(n, axis=0, dtype="int64"), lambda a: total(a, 0, "int64")),
        ([big], np.cumsum(big, dtype="int64"), lambda a: total(a, dtype="int64")),
        ([n], _exclusive(np.cumsum(n, axis=1, dtype="int32"), 1, 0), lambda a: total(a, 1, exclusive=True)),
        ([n % 3 + 1], _exclusive(np.cumprod(n % 3 + 1, axis=0, dtype="int32"), 0, 1), lambda a: product(a, 0, exclusive=True)),
        ([n > 0], np.cumsum(n > 0, dtype="int32"), lambda a: total(a, dtype="int32")),
    ]
    for arrays, want, make in cases:
        compare_numpy_tvm(arrays, want, target, None, make, schedule)


def test_a_scan_is_an_extern_whose_lines_run_in_parallel_and_an_empty_axis_writes_nothing():
    A = te.placeholder((3, 0), name="A")
    out = topi.cumsum(A, axis=1)
    assert out.op.name == "cumsum_generic" and out.op.tag == "cumsum"
    f = build(te.create_schedule(out.op), [A, out])
    f(np.zeros((3, 0), "float32"), np.zeros((3, 0), "float32"))
    B = te.placeholder((5, 4), name="B")
    with Target("llvm"):
        s = topi.generic.schedule_extern([topi.cumsum(B, 0)])
    assert "parallel" in str(build(s, [B, s.outputs[0].output(0)]).source)


@pytest.mark.parametrize("make, message", [
    (lambda A: topi.cumsum(A, 2), "axis 2 is out of range"),
    (lambda A: topi.cumprod(A, 0, "float31"), "float31"),
    (lambda A: topi.cumsum([A]), "takes a tensor"),
])
def test_bad_arguments_are_refused(make, message):
    with pytest.raises((ValueError, TypeError)) as err:
        make(te.placeholder((2, 3), name="A"))
    assert message in str(err.value)


def test_get_shape_moves_and_splits_axes_by_name():
    assert get_shape((2, 8, 5, 6), "NCHW", "NHWC") == (2, 5, 6, 8)
    assert get_shape((2, 8, 5, 6), "NCHW", "NCHW4c") == (2, 2, 5, 6, 4)
    assert get_shape((2, 2, 5, 6, 4), "NCHW4c", "NCHW") == (2, 8, 5, 6)
    assert get_shape((4, 6, 3, 3, 2, 8), "OIHW2i8o", "HWO8oI2i") == (3, 3, 4, 8, 6, 2)
    with pytest.raises(ValueError, match="do not hold the same axes"):
        get_shape((2, 8), "NC", "NH")


@pytest.mark.parametrize("shape, axis", [((9,), 0), ((1000,), 0), ((4, 33), 1), ((6, 5, 3), 1), ((6, 5, 3), 0)])
def test_the_gpu_scan_is_a_kernel_a_pass_and_equals_the_serial_one(shape, axis):
    """Hillis-Steele: the running maximum (any associative operation) and exclusive sums of
    integers equal the serial scan exactly; each pass is its own kernel."""
    x = RNG.integers(-50, 50, shape).astype("int32")
    A = te.placeholder(shape, "int32", "A")
    with Target("cuda"):
        running_max = topi.cuda.scanop(A, te.max, te.min_value("int32"), "cummax", axis)
        sums = topi.cuda.cumsum(A, axis, "int64", exclusive=True)
        s = topi.cuda.schedule_scan([running_max, sums])
    assert running_max.op.name == "cummax_gpu"
    got_max, got_sum = np.zeros(shape, "int32"), np.zeros(shape, "int64")
    f = build(s, [A, running_max, sums], target="cuda")
    f(x, got_max, got_sum)
    np.testing.assert_array_equal(got_max, np.maximum.accumulate(x, axis=axis))
    np.testing.assert_array_equal(got_sum, _exclusive(np.cumsum(x, axis=axis, dtype="int64"), axis, 0))
    passes = int(np.ceil(np.log2(shape[axis]))) if shape[axis] > 1 else 0
    # per scan: the load, one kernel a pass, the store
    assert len(f.imported_modules[0].entry_names) == 2 * (passes + 2)


def test_inclusive_and_exclusive_scans_with_the_reduction_as_tvms_cuda_ones():
    x = RNG.integers(-9, 10, (3, 4, 7)).astype("int32")
    A = te.placeholder(x.shape, "int32", "A")
    with Target("cuda"):
        inclusive = topi.cuda.inclusive_scan(A, axis=-1)
        exclusive, total = topi.cuda.exclusive_scan(A, axis=1, return_reduction=True, output_dtype="int64")
        s = topi.cuda.schedule_scan([inclusive, exclusive, total])
    got = [np.zeros(x.shape, "int32"), np.zeros(x.shape, "int64"), np.zeros((3, 7), "int64")]
    build(s, [A, inclusive, exclusive, total])(x, *got)
    np.testing.assert_array_equal(got[0], np.cumsum(x, axis=-1))
    np.testing.assert_array_equal(got[1], _exclusive(np.cumsum(x, axis=1, dtype="int64"), 1, 0))
    np.testing.assert_array_equal(got[2], x.sum(axis=1))


def test_scanop_takes_tvms_generic_operators_and_refuses_a_binop_that_is_not_a_function():
    x = RNG.integers(1, 4, (5, 6)).astype("int64")
    A = te.placeholder(x.shape, "int64", "A")
    out = topi.scanop(A, tvm.tir.generic.multiply, 1, "cumprod", axis=1)
    got = np.zeros(x.shape, "int64")
    build(te.create_schedule(out.op), [A, out])(x, got)
    np.testing.assert_array_equal(got, np.cumprod(x, axis=1))
    with pytest.raises(TypeError, match="binop is a function"):
        topi.scanop(A, "add", 0, "cumsum")
