"""Deformable convolution and the correlation layer: the NumPy references against TVM's
outputs for the same inputs (``data/tvm_outputs.npz``), the kernels under the generic and CUDA
schedules against the references, and the refusals."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target
from topi import testing as ref

SAVED = np.load(pathlib.Path(__file__).parent / "data" / "tvm_outputs.npz")
RNG = np.random.default_rng(41)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_the_references_equal_tvms_outputs():
    a, o, w = (SAVED[f"deformable_nchw/in{k}"] for k in range(3))
    got = ref.deformable_conv2d_nchw_python(a, o * np.float32(1.5), w, 1, (0, 1), 1, 2, 1)
    np.testing.assert_allclose(got, SAVED["deformable_nchw/out"], rtol=1e-5, atol=1e-5)
    a, o, w = (SAVED[f"deformable_nhwc/in{k}"] for k in range(3))
    got = ref.deformable_conv2d_nhwc_python(a, o, w, 2, 0, 2, 1, 1)
    np.testing.assert_allclose(got, SAVED["deformable_nhwc/out"], rtol=1e-5, atol=1e-5)
    a, b = SAVED["correlation_mul/in0"], SAVED["correlation_mul/in1"]
    np.testing.assert_allclose(ref.correlation_nchw_python(a, b, 3, 2, 1, 1, 2, True), SAVED["correlation_mul/out"],
                               rtol=1e-5, atol=1e-6)
    a, b = SAVED["correlation_abs/in0"], SAVED["correlation_abs/in1"]
    np.testing.assert_allclose(ref.correlation_nchw_python(a, b, 1, 4, 2, 2, (1, 2, 3, 0), False),
                               SAVED["correlation_abs/out"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("style", ["generic", "cuda"])
def test_the_kernels_under_their_schedules(style):
    a, off, w = (RNG.standard_normal(s).astype("float32") for s in ((1, 4, 6, 5), (1, 18, 6, 5), (2, 4, 3, 3)))
    A, O, W = te.placeholder(a.shape, name="A"), te.placeholder(off.shape, name="O"), te.placeholder(w.shape, name="W")
    b = RNG.standard_normal((1, 4, 6, 5)).astype("float32")
    B = te.placeholder(b.shape, name="B")
    with Target("cuda" if style == "cuda" else "llvm"):
        conv = getattr(topi, style if style == "cuda" else "nn").deformable_conv2d_nchw(A, O, W, 1, 1, 1, 1, 1,
                                                                                       "float32")
        corr = topi.nn.correlation_nchw(A, B, 3, 2, 1, 2, 2, True)
        s1 = getattr(topi, style).schedule_deformable_conv2d_nchw([conv])
        s2 = getattr(topi, style).schedule_correlation_nchw([corr])
    got1 = np.full([int(d) for d in conv.shape], np.nan, "float32")
    got2 = np.full([int(d) for d in corr.shape], np.nan, "float32")
    build(s1, [A, O, W, conv])(a, off, w, got1)
    build(s2, [A, B, corr])(a, b, got2)
    np.testing.assert_allclose(got1, ref.deformable_conv2d_nchw_python(a, off, w, 1, 1, 1, 1, 1), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(got2, ref.correlation_nchw_python(a, b, 3, 2, 1, 2, 2, True), rtol=1e-5, atol=1e-5)


def test_zero_offsets_make_the_deformable_convolution_the_plain_one():
    a, w = RNG.standard_normal((2, 3, 6, 7)).astype("float32"), RNG.standard_normal((4, 3, 3, 3)).astype("float32")
    A, O, W = te.placeholder(a.shape, name="A"), te.placeholder((2, 18, 6, 7), name="O"), te.placeholder(w.shape,
                                                                                                       name="W")
    conv = topi.nn.deformable_conv2d_nchw(A, O, W, 1, 1, 1, 1, 1, None)
    got = np.zeros((2, 4, 6, 7), "float32")
    build(te.create_schedule(conv.op), [A, O, W, conv])(a, np.zeros((2, 18, 6, 7), "float32"), w, got)
    np.testing.assert_allclose(got, ref.conv2d_nchw_python(a, w, 1, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("make, message", [
    (lambda: topi.nn.deformable_conv2d_nchw(te.placeholder((1, 4, 5, 5)), te.placeholder((1, 18, 5, 5)),
                                            te.placeholder((2, 4, 3, 3)), 1, 1, 1, 3, 1, None), "dividing the 4"),
    (lambda: topi.nn.deformable_conv2d_nchw(te.placeholder((1, 4, 5, 5)), te.placeholder((1, 18, 5, 5)),
                                            te.placeholder((2, 4, 3, 3)), 1, 1, 1, 1, 2, None), "groups must be 1"),
    (lambda: topi.nn.correlation_nchw(te.placeholder((1, 2, 5, 5)), te.placeholder((1, 2, 5, 6)), 1, 1, 1, 1, 0,
                                      True), "one shape"),
    (lambda: topi.nn.correlation_nchw(te.placeholder((1, 2, 5, 5)), te.placeholder((1, 2, 5, 5)), 2, 1, 1, 1, 0,
                                      True), "positive odd"),
])
def test_bad_arguments_are_refused(make, message):
    with pytest.raises(ValueError) as err:
        make()
    assert message in str(err.value)
