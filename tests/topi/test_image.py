"""The image operators (``topi.image``): our NumPy references, written point by point from
PyTorch's and TensorFlow's definitions, against the outputs TVM computed for the same inputs
(``data/tvm_outputs.npz``; the kernels against those in ``test_tvm_outputs.py``); the kernels
under the CUDA schedule; the refusals."""

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
RNG = np.random.default_rng(31)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _sigmoid(x):
    return (1 / (1 + np.exp(-x.astype("float64")))).astype("float32")


@pytest.mark.parametrize("case, method, padding, align, scale", [
    ("grid_sample_zeros", "bilinear", "zeros", False, 1.0), ("grid_sample_bicubic", "bicubic", "reflection", True, 1.0),
    ("grid_sample_bicubic_border", "bicubic", "border", False, 1.0), ("grid_sample_nearest", "nearest", "border", True,
                                                                      1.0),
    ("grid_sample_reflect", "bilinear", "reflection", False, 2.0), ("grid_sample_3d", "bilinear", "reflection", True,
                                                                    1.0)])
def test_grid_sample_reference_equals_tvms_outputs(case, method, padding, align, scale):
    got = ref.grid_sample_python(SAVED[f"{case}/in0"], SAVED[f"{case}/in1"] * np.float32(scale), method, "NCHW",
                                 padding, align)
    np.testing.assert_allclose(got, SAVED[f"{case}/out"], rtol=1e-5, atol=1e-5)


def test_affine_grid_and_crop_and_resize_references_equal_tvms_outputs():
    np.testing.assert_allclose(ref.affine_grid_python(SAVED["affine_grid/in0"], (4, 5)), SAVED["affine_grid/out"],
                               rtol=1e-6, atol=1e-6)
    boxes = _sigmoid(SAVED["crop_and_resize/in1"]) * np.float32(1.4) - np.float32(0.2)
    got = ref.crop_and_resize_python(SAVED["crop_and_resize/in0"], boxes, np.array([1, 0, 1]), (4, 5), "NCHW",
                                     "bilinear", 0.5)
    np.testing.assert_allclose(got, SAVED["crop_and_resize/out"], rtol=1e-5, atol=1e-5)
    got = ref.crop_and_resize_python(SAVED["crop_and_resize_nearest/in0"], _sigmoid(SAVED["crop_and_resize_nearest/in1"]),
                                     np.array([0, 1, 0]), (3, 4), "NHWC", "nearest_neighbor", 0.0)
    np.testing.assert_array_equal(got, SAVED["crop_and_resize_nearest/out"])


def test_the_kernels_under_the_cuda_schedule_equal_the_references():
    a = RNG.standard_normal((1, 2, 5, 6)).astype("float32")
    g = RNG.uniform(-1.3, 1.3, (1, 2, 4, 3)).astype("float32")
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [-0.1, 0.0, 0.5, 1.2]], "float32")
    A, G, B = te.placeholder(a.shape, name="A"), te.placeholder(g.shape, name="G"), te.placeholder((2, 4), name="B")
    idx = te.compute((2,), lambda i: i * 0, name="idx")
    outs = [topi.image.grid_sample(A, G, "bicubic", "NCHW", "reflection", False),
            topi.image.resize2d(A, [0.0] * 4, (9, 4), method="linear", coordinate_transformation_mode="half_pixel"),
            topi.image.crop_and_resize(A, B, idx, (3, 3), extrapolation_value=-1.0)]
    with Target("cuda"):
        s = topi.cuda.schedule_injective(outs)
    got = [np.full([int(d) for d in o.shape], np.nan, "float32") for o in outs]
    build(s, [A, G, B, *outs])(a, g, boxes, *got)
    np.testing.assert_allclose(got[0], ref.grid_sample_python(a, g, "bicubic", "NCHW", "reflection", False),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], ref.resize2d_python(a, (9 / 5, 4 / 6), "NCHW", "linear", "half_pixel"),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[2], ref.crop_and_resize_python(a, boxes, np.array([0, 0]), (3, 3), "NCHW",
                                                                  "bilinear", -1.0), rtol=1e-5, atol=1e-5)


def test_upsampling_is_resize2d_with_tvms_arguments():
    a = RNG.standard_normal((1, 2, 4, 5)).astype("float32")
    A = te.placeholder(a.shape, name="A")
    outs = [topi.nn.upsampling(A, 2, 1.5, method="bilinear", align_corners=True),
            topi.image.resize2d(A, [0.0] * 4, (8, 8), method="linear", coordinate_transformation_mode="align_corners")]
    got = [np.zeros((1, 2, 8, 8), "float32") for _ in outs]
    build(te.create_schedule([o.op for o in outs]), [A, *outs])(a, *got)
    np.testing.assert_array_equal(got[0], got[1])


@pytest.mark.parametrize("make, message", [
    (lambda A: topi.image.resize2d(A, [0.0] * 4, (3, 3), method="area"), "method must be one of"),
    (lambda A: topi.image.resize2d(A, [0.0] * 4, (3, 3), coordinate_transformation_mode="tf"), "coordinate_trans"),
    (lambda A: topi.image.resize2d(A, [0.0] * 4, (3, 3), rounding_method="down"), "rounding_method"),
    (lambda A: topi.image.resize2d(A, [0.0] * 3, (3, 3)), "roi is 4 values"),
    (lambda A: topi.image.resize1d(A, [0.0] * 2, (3,), layout="NCW"), "must name each of the 4 axes"),
    (lambda A: topi.image.affine_grid(te.placeholder((1, 2, 3)), (1, 4)), "each above 1"),
    (lambda A: topi.image.grid_sample(A, te.placeholder((1, 3, 2, 2))), "the grid is (N, 2"),
    (lambda A: topi.image.grid_sample(A, te.placeholder((1, 2, 2, 2)), padding_mode="wrap"), "padding_mode"),
    (lambda A: topi.image.crop_and_resize(A, te.placeholder((1, 4)), te.placeholder((1,), "int32"), (2, 2),
                                          method="cubic"), "'bilinear' or 'nearest_neighbor'"),
])
def test_bad_arguments_are_refused(make, message):
    with pytest.raises(ValueError) as err:
        make(te.placeholder((1, 2, 4, 5), name="A"))
    assert message in str(err.value)
