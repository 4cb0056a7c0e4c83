"""The workload tuples of conv2d and depthwise conv2d and the x86 fallback tiles keyed on them
(hand-computed cases, and the tiles' product is the output width the build gives); the
blocked NCHWc depthwise convolution, the per-channel scale and shift, the NHWC depthwise
schedule and its HWIO kernel, against NumPy written out element by element."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target
from topi import testing as ref
from topi.nn.conv2d import _get_workload as conv_workload
from topi.nn.depthwise_conv2d import _get_workload as depthwise_workload
from topi.x86.conv2d_avx_common import _fallback_schedule as conv_fallback
from topi.x86.depthwise_conv2d import _fallback_schedule as depthwise_fallback
from tune import autotvm

RNG = np.random.default_rng(11)


def _direct_depthwise(a, w, stride, pad):
    """NCHW depthwise by loops: output channel c*m+k reads input c with filter w[c, k]."""
    n, c, h, wd = a.shape
    _, m, kh, kw = w.shape
    p = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, c * m, oh, ow), "float64")
    for ch in range(c):
        for k in range(m):
            for y in range(oh):
                for x in range(ow):
                    window = p[:, ch, y * stride:y * stride + kh, x * stride:x * stride + kw]
                    out[:, ch * m + k, y, x] = (window * w[ch, k]).sum(axis=(1, 2))
    return out


def test_conv2d_workload_by_hand():
    A, W = te.placeholder((1, 64, 56, 56), name="A"), te.placeholder((128, 32, 3, 3), name="W")
    wkl = conv_workload(A, W, (2, 2), "SAME", 1, "float32")
    assert (wkl.height, wkl.width, wkl.in_filter, wkl.groups, wkl.out_filter) == (56, 56, 64, 2, 128)
    assert (wkl.padt, wkl.padl, wkl.padb, wkl.padr, wkl.stride_h, wkl.dilation_w) == (1, 1, 1, 1, 2, 1)
    nhwc = conv_workload(te.placeholder((1, 56, 56, 64)), te.placeholder((3, 3, 64, 16)), 1, 0, 1, "float32",
                         "NHWC")
    assert (nhwc.in_filter, nhwc.out_filter, nhwc.kernel_h, nhwc.groups) == (64, 16, 3, 1)
    with pytest.raises(ValueError, match="constant"):
        conv_workload(te.placeholder((te.var("n"), 3, 8, 8)), W, 1, 0, 1, "float32")
    with pytest.raises(ValueError, match="not supported"):
        conv_workload(A, W, 1, 0, 1, "float32", "NCWH")


def test_depthwise_workload_by_hand_in_three_layouts():
    nchw = depthwise_workload(te.placeholder((1, 8, 9, 9)), te.placeholder((8, 2, 3, 3)), 1, (1, 2), 2, "float32")
    assert (nchw.in_filter, nchw.out_filter, nchw.padt, nchw.padl, nchw.dilation_h) == (8, 16, 1, 2, 2)
    nhwc = depthwise_workload(te.placeholder((1, 9, 9, 8)), te.placeholder((5, 5, 8, 3)), 2, "VALID", 1,
                              "float32", "NHWC")
    assert (nhwc.in_filter, nhwc.out_filter, nhwc.kernel_w, nhwc.padr) == (8, 24, 5, 0)
    nchwc = depthwise_workload(te.placeholder((1, 2, 9, 9, 4)), te.placeholder((1, 1, 3, 3, 1, 8)), 1, 1, 1,
                               "float32", "NCHWc")
    assert (nchwc.in_filter, nchwc.out_filter, nchwc.height) == (8, 8, 9)
    with pytest.raises(ValueError, match="does not fit"):
        depthwise_workload(te.placeholder((1, 2, 9, 9, 4)), te.placeholder((8, 1, 3, 3)), 1, 1, 1, "float32",
                           "NCHWc")


@pytest.mark.parametrize("mcpu, lanes", [("", 4), ("haswell", 8), ("skylake-avx512", 16)])
@pytest.mark.parametrize("size, kernel, stride, padding", [(224, 7, 2, 3), (56, 3, 1, 1), (14, 3, 2, 1),
                                                            (7, 1, 1, 0), (37, 5, 2, "SAME")])
def test_fallback_tiles_cover_the_output_width(mcpu, lanes, size, kernel, stride, padding):
    A, W = te.placeholder((1, 24, size, size), name="A"), te.placeholder((40, 24, kernel, kernel), name="W")
    out_width = int(topi.nn.conv2d_nchw(A, W, stride, padding, 1).shape[3])
    with Target(f"llvm -mcpu={mcpu}" if mcpu else "llvm"):
        cfg = autotvm.get_config()
        conv_fallback(cfg, conv_workload(A, W, stride, padding, 1, "float32"))
    ic, oc, ow = cfg["tile_ic"].size, cfg["tile_oc"].size, cfg["tile_ow"].size
    assert ow[0] * ow[1] == out_width and ow[1] <= 31
    assert oc == [40 // oc[1], oc[1]] and oc[1] <= lanes and 40 % oc[1] == 0
    assert ic[1] <= oc[1] and 24 % ic[1] == 0
    assert cfg["unroll_kw"].val is False and cfg.is_fallback
    # The largest block: no divisor of 40 between oc[1] and the vector's lanes.
    assert not any(40 % b == 0 for b in range(oc[1] + 1, lanes + 1))


def test_depthwise_fallback_tiles_cover_the_output_width():
    Input, Filter = te.placeholder((1, 9, 9, 6)), te.placeholder((5, 5, 6, 2))
    wkl = depthwise_workload(Input, Filter, 2, "SAME", 2, "float32", "NHWC")
    cfg = autotvm.get_config()
    depthwise_fallback(cfg, wkl)
    out_width = int(topi.nn.depthwise_conv2d_nhwc(Input, Filter, 2, "SAME", 2).shape[2])
    assert np.prod(cfg["tile_ow"].size) == out_width


@pytest.mark.parametrize("stride, pad, relu", [(1, 1, True), (2, 0, False)])
def test_nchwc_depthwise_with_scale_shift(stride, pad, relu):
    a = RNG.standard_normal((2, 8, 7, 7)).astype("float32")
    w = RNG.standard_normal((8, 2, 3, 3)).astype("float32")
    scale, shift = RNG.standard_normal(16).astype("float32"), RNG.standard_normal(16).astype("float32")
    expect = _direct_depthwise(a, w, stride, pad) * scale[None, :, None, None] + shift[None, :, None, None]
    expect = np.maximum(expect, 0) if relu else expect
    # Input channels in blocks of 4, output channels in blocks of 8.
    data = a.reshape(2, 2, 4, 7, 7).transpose(0, 1, 3, 4, 2).copy()
    kernel = w.reshape(16, 3, 3).reshape(2, 8, 3, 3).transpose(0, 2, 3, 1)[:, None, :, :, None, :].copy()
    D, K = te.placeholder(data.shape, name="D"), te.placeholder(kernel.shape, name="K")
    S, H = te.placeholder((2, 8), name="S"), te.placeholder((2, 8), name="H")
    out = topi.nn.scale_shift_nchwc(topi.x86.depthwise_conv2d_NCHWc(D, K, stride, pad, 1, "NCHW4c", "NCHW8c"), S, H)
    out = topi.nn.relu(out) if relu else out
    got = np.full([int(d) for d in out.shape], np.nan, "float32")
    build(topi.x86.schedule_depthwise_conv2d_NCHWc([out]), [D, K, S, H, out])(
        data, kernel, scale.reshape(2, 8), shift.reshape(2, 8), got)
    np.testing.assert_allclose(got.transpose(0, 1, 4, 2, 3).reshape(expect.shape), expect, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ref.depthwise_conv2d_python_nchwc(data, kernel, stride, pad),
                               _direct_depthwise(a, w, stride, pad).reshape(2, 2, 8, *expect.shape[2:])
                               .transpose(0, 1, 3, 4, 2), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout", ["HWOI", "HWIO"])
def test_nhwc_depthwise_schedule_and_kernel_layouts(layout):
    a = RNG.standard_normal((1, 6, 6, 3)).astype("float32")
    w = RNG.standard_normal((3, 2, 3, 3)).astype("float32")  # (channels, multiplier, kh, kw)
    kernel = w.transpose(2, 3, 0, 1) if layout == "HWOI" else w.transpose(2, 3, 1, 0)
    I, K = te.placeholder(a.shape, name="I"), te.placeholder(kernel.shape, name="K")
    S, H = te.placeholder((6,), name="S"), te.placeholder((6,), name="H")
    out = topi.nn.scale_shift_nhwc(topi.nn.depthwise_conv2d_nhwc(I, K, 1, 1, 1, layout), S, H)
    scale, shift = RNG.standard_normal(6).astype("float32"), RNG.standard_normal(6).astype("float32")
    got = np.full((1, 6, 6, 6), np.nan, "float32")
    build(topi.generic.conv2d.schedule_depthwise_conv2d_nhwc([out]), [I, K, S, H, out])(
        a, kernel.copy(), scale, shift, got)
    expect = _direct_depthwise(a.transpose(0, 3, 1, 2), w, 1, 1).transpose(0, 2, 3, 1) * scale + shift
    np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ref.depthwise_conv2d_python_nhwc(a, w.transpose(2, 3, 0, 1), 1, 1),
                               _direct_depthwise(a.transpose(0, 3, 1, 2), w, 1, 1).transpose(0, 2, 3, 1),
                               rtol=1e-4, atol=1e-4)


def test_a_type_in_the_layouts_place_is_the_output_type():
    """TVM's own callers pass the output type as the sixth argument."""
    I, K = te.placeholder((1, 5, 5, 2), name="I", dtype="int16"), te.placeholder((3, 3, 2, 1), name="K",
                                                                                   dtype="int16")
    assert topi.nn.depthwise_conv2d_nhwc(I, K, 1, 0, 1, "int32").dtype == "int32"
    with pytest.raises(ValueError, match="'HWOI' or 'HWIO'"):
        topi.nn.depthwise_conv2d_nhwc(I, K, 1, 0, 1, "NCHW")


def test_bad_scale_shift_and_nchwc_input_are_refused():
    D = te.placeholder((1, 2, 5, 5, 4), name="D")
    with pytest.raises(ValueError, match="Scale must be 2-dimensional"):
        topi.nn.scale_shift_nchwc(D, te.placeholder((8,)), te.placeholder((2, 4)))
    with pytest.raises(TypeError, match="Shift must be a tensor"):
        topi.nn.scale_shift_nchw(te.placeholder((1, 2, 3, 3)), te.placeholder((2,)), 1.0)
    with pytest.raises(ValueError, match="kernel must be 6-dimensional"):
        topi.x86.depthwise_conv2d_NCHWc(D, te.placeholder((1, 1, 3, 3)), 1, 0, 1, "NCHW4c", "NCHW4c")
    with pytest.raises(ValueError, match="constant multiple"):
        topi.x86.depthwise_conv2d_NCHWc(D, te.placeholder((1, 1, 3, 3, 1, 6)), 1, 0, 1, "NCHW4c", "NCHW6c")


@pytest.mark.parametrize("n, h, w, ci, co, pad, tile", [(1, 8, 8, 3, 4, 1, 4), (2, 7, 9, 2, 3, 0, 2),
                                                         (1, 6, 5, 2, 2, "SAME", 6)])
def test_winograd_is_the_direct_convolution(n, h, w, ci, co, pad, tile):
    a = RNG.standard_normal((n, h, w, ci)).astype("float32")
    k = RNG.standard_normal((3, 3, ci, co)).astype("float32")
    A, K = te.placeholder(a.shape, name="A"), te.placeholder(k.shape, name="K")
    out = topi.nn.conv2d_winograd_nhwc(A, K, 1, pad, 1, "float32", tile_size=tile)
    assert [op.name for op in (out.op, out.op.input_tensors[0].op)] == ["conv2d_winograd", "inverse"]
    got = np.full([int(d) for d in out.shape], np.nan, "float32")
    build(te.create_schedule(out.op), [A, K, out])(a, k, got)
    np.testing.assert_allclose(got, ref.conv2d_nhwc_python(a, k, 1, pad), rtol=1e-4, atol=1e-4)
    # the transforms: A^T [(G g) * (B^T d)] is the correlation of d with g
    At, Bt, Gt = (_matrix(t) for t in topi.nn.winograd_transform_matrices(tile, 3, "float64"))
    d, g = RNG.standard_normal(tile + 2), RNG.standard_normal(3)
    np.testing.assert_allclose(At.T @ ((Gt @ g) * (Bt.T @ d)), np.correlate(d, g, "valid"), atol=1e-9)
    with pytest.raises(ValueError, match="3 x 3 HWIO kernel"):
        topi.nn.conv2d_winograd_nhwc(A, K, 2, pad, 1, "float32")


def _matrix(t):
    """A constant matrix tensor's values, computed."""
    out = np.zeros([int(d) for d in t.shape], t.dtype)
    build(te.create_schedule(t.op), [t])(out)
    return out
