"""TVM's per-target topi names (hls, gpu, mali, bifrost, arm_cpu, intel_graphics, x86's dense
variants) build what the generic computes build; all/any/tan and the NHWC depthwise
convolution against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from topi.utils import nchw_pack_layout

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("compute, schedule", [
    (topi.nn.dense, topi.hls.schedule_dense), (topi.x86.dense_nopack, topi.x86.schedule_dense_nopack),
    (topi.x86.dense_pack, topi.x86.schedule_dense_pack), (topi.gpu.dense_small_batch, topi.generic.schedule_dense),
    (topi.mali.dense, topi.mali.schedule_dense), (topi.bifrost.dense, topi.bifrost.schedule_dense),
    (topi.arm_cpu.dense, topi.arm_cpu.schedule_dense),
])
def test_every_targets_dense_is_the_product(compute, schedule):
    A, W = te.placeholder((4, 16), name="A"), te.placeholder((8, 16), name="W")
    out = compute(A, W, None, "float32")
    a, w = RNG.standard_normal((4, 16)).astype("float32"), RNG.standard_normal((8, 16)).astype("float32")
    got = np.full((4, 8), np.nan, "float32")
    build(schedule([out]), [A, W, out])(a, w, got)
    np.testing.assert_allclose(got, a @ w.T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stride, padding, dilation", [(1, 1, 1), (2, 0, 1), (1, 2, 2)])
def test_depthwise_nhwc_equals_the_nchw_one_transposed(stride, padding, dilation):
    a = RNG.standard_normal((1, 7, 7, 3)).astype("float32")
    w = RNG.standard_normal((3, 3, 3, 2)).astype("float32")
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    An, Wn = te.placeholder((1, 3, 7, 7), name="An"), te.placeholder((3, 2, 3, 3), name="Wn")
    nhwc = topi.mali.depthwise_conv2d_nhwc(A, W, stride, padding, dilation)
    nchw = topi.nn.depthwise_conv2d_nchw(An, Wn, stride, padding, dilation)
    got, ref = (np.full([int(d) for d in t.shape], np.nan, "float32") for t in (nhwc, nchw))
    build(te.create_schedule(nhwc.op), [A, W, nhwc])(a, w, got)
    build(te.create_schedule(nchw.op), [An, Wn, nchw])(a.transpose(0, 3, 1, 2).copy(), w.transpose(2, 3, 0, 1).copy(),
                                                       ref)
    np.testing.assert_allclose(got, ref.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)
    hwio = topi.nn.depthwise_conv2d_nhwc(A, te.placeholder((3, 3, 2, 3), name="W2"), stride, padding, dilation,
                                         kernel_layout="HWIO")
    assert [int(d) for d in hwio.shape] == list(got.shape)
    with pytest.raises(ValueError, match="'HWOI' or 'HWIO'"):
        topi.nn.depthwise_conv2d_nhwc(A, W, 1, 0, 1, kernel_layout="OIHW")


def test_all_any_and_tan():
    A = te.placeholder((3, 4), name="A", dtype="bool")
    B = te.placeholder((5,), name="B")
    outs = [topi.all(A, axis=1), topi.any(A, axis=0, keepdims=True), topi.all(A), topi.tan(B)]
    a, b = RNG.random((3, 4)) > 0.3, RNG.uniform(-1, 1, 5).astype("float32")
    got = [np.zeros([int(d) for d in o.shape], o.dtype) for o in outs]
    build(te.create_schedule([o.op for o in outs]), [A, B, *outs])(a, b, *got)
    for g, e in zip(got, [a.all(1), a.any(0, keepdims=True), a.all(), np.tan(b)]):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    with pytest.raises(TypeError, match="bool tensor"):
        topi.all(B)
    assert nchw_pack_layout("NCHW4n4c") and not nchw_pack_layout("NCHW") and not nchw_pack_layout("NHWC4c")


def test_arm_cpu_names_compute_as_the_generic_ones():
    a = RNG.standard_normal((1, 6, 6, 2)).astype("float32")
    w = RNG.standard_normal((3, 3, 2, 1)).astype("float32")
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    ours = topi.arm_cpu.compute_depthwise_conv2d_nhwc(A, W, 1, 1, 1, "float32")
    generic = topi.nn.depthwise_conv2d_nhwc(A, W, 1, 1, 1)
    got, ref = (np.full((1, 6, 6, 2), np.nan, "float32") for _ in range(2))
    build(topi.arm_cpu.schedule_depthwise_conv2d_nhwc([ours]), [A, W, ours])(a, w, got)
    build(te.create_schedule(generic.op), [A, W, generic])(a, w, ref)
    np.testing.assert_array_equal(got, ref)
    assert topi.cuda.batch_matmul is topi.nn.batch_matmul and topi.arm_cpu.conv2d_nhwc_spatial_pack is topi.nn.conv2d_nhwc


def test_conv2d_nhwc_takes_an_ohwi_kernel():
    a = RNG.standard_normal((1, 6, 6, 3)).astype("float32")
    w = RNG.standard_normal((3, 3, 3, 4)).astype("float32")  # HWIO
    A, W, Wo = (te.placeholder(x.shape, name=n) for x, n in ((a, "A"), (w, "W"), (w.transpose(3, 0, 1, 2), "Wo")))
    hwio = topi.nn.conv2d(A, W, 2, 1, 1, data_layout="NHWC")
    ohwi = topi.nn.conv2d(A, Wo, 2, 1, 1, data_layout="NHWC", kernel_layout="OHWI", out_dtype="float32")
    got = [np.full((1, 3, 3, 4), np.nan, "float32") for _ in range(2)]
    build(te.create_schedule([hwio.op, ohwi.op]), [A, W, Wo, hwio, ohwi])(a, w, w.transpose(3, 0, 1, 2).copy(), *got)
    np.testing.assert_allclose(got[1], got[0], rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="HWIO or OHWI"):
        topi.nn.conv2d(A, W, 1, 1, 1, data_layout="NHWC", kernel_layout="IOHW")
