"""RoI align and RoI pool (``topi.vision``): the references (bin by bin, as Detectron and Fast
R-CNN define them) against TVM's outputs for the same inputs, the kernels under the generic
and CUDA schedules against the references, NHWC against NCHW, and the refusals."""

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
RNG = np.random.default_rng(59)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _rois(r):
    """As ``tvm_cases._rois``: images 0, 1, 0 and corners from a sigmoid of *r*."""
    corners = (1 / (1 + np.exp(-r.astype("float64"))) * 16 - 2).astype("float32")
    return np.concatenate([np.array([[0], [1], [0]], "float32"), corners], axis=1)


@pytest.mark.parametrize("case, args", [("roi_align_avg", ((3, 2), 0.8, 2, "avg")), ("roi_align_max", (3, 1.0, -1, "max")),
                                        ("roi_align_adaptive", ((2, 4), 0.5, -1, "avg"))])
def test_the_roi_align_reference_equals_tvms_outputs(case, args):
    got = ref.roi_align_nchw_python(SAVED[f"{case}/in0"], _rois(SAVED[f"{case}/in1"]), *args)
    np.testing.assert_allclose(got, SAVED[f"{case}/out"], rtol=1e-5, atol=1e-5)


def test_the_roi_pool_reference_equals_tvms_outputs():
    got = ref.roi_pool_nchw_python(SAVED["roi_pool/in0"], _rois(SAVED["roi_pool/in1"]), (3, 2), 0.9)
    np.testing.assert_array_equal(got, SAVED["roi_pool/out"])


@pytest.mark.parametrize("style", ["generic", "cuda"])
def test_the_kernels_under_their_schedules(style):
    a = RNG.standard_normal((2, 3, 9, 11)).astype("float32")
    rois = _rois(RNG.standard_normal((3, 4)).astype("float32"))
    rois[2, 1:] = [20.0, 20.0, 25.0, 30.0]  # outside the image: zeros, and empty pool bins
    A, R = te.placeholder(a.shape, name="A"), te.placeholder(rois.shape, name="R")
    with Target("cuda" if style == "cuda" else "llvm"):
        align = topi.vision.roi_align_nchw(A, R, (2, 3), 0.7, 0, sample_ratio=-1)
        pool = topi.vision.rcnn.roi_pool_nchw(A, R, 2, 1.0)
        s1 = getattr(topi, style).schedule_roi_align([align])
        s2 = getattr(topi, style).schedule_roi_pool([pool])
    got1, got2 = np.full((3, 3, 2, 3), np.nan, "float32"), np.full((3, 3, 2, 2), np.nan, "float32")
    build(s1, [A, R, align])(a, rois, got1)
    build(s2, [A, R, pool])(a, rois, got2)
    np.testing.assert_allclose(got1, ref.roi_align_nchw_python(a, rois, (2, 3), 0.7, -1, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got2, ref.roi_pool_nchw_python(a, rois, 2, 1.0))
    assert (got2[2] == 0).all()


def test_nhwc_roi_align_is_the_nchw_one_transposed():
    a = RNG.standard_normal((1, 4, 8, 8)).astype("float32")
    rois = _rois(RNG.standard_normal((3, 4)).astype("float32"))
    rois[:, 0] = 0
    A, R = te.placeholder((1, 8, 8, 4), name="A"), te.placeholder(rois.shape, name="R")
    out = topi.vision.roi_align_nhwc(A, R, 2, 1.0, "max", 2)
    got = np.zeros((3, 2, 2, 4), "float32")
    build(te.create_schedule(out.op), [A, R, out])(a.transpose(0, 2, 3, 1).copy(), rois, got)
    np.testing.assert_allclose(got.transpose(0, 3, 1, 2), ref.roi_align_nchw_python(a, rois, 2, 1.0, 2, "max"),
                               rtol=1e-5, atol=1e-5)


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="mode is 'avg'"):
        topi.vision.roi_align_nchw(te.placeholder((1, 1, 4, 4)), te.placeholder((1, 5)), 2, 1.0, "mean")
