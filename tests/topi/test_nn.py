"""topi.nn against topi.testing's NumPy references, on both targets (the conftest runs each
module on each) and both bound modes; the references against definitions written out by hand
(direct loops, and the transposed convolution as the adjoint of the convolution); TVM's stage
names and tags; symbolic shapes; bad input refused with a message."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from topi import testing as ref

RNG = np.random.default_rng(1)


def _data(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _run(outputs, inputs, arrays, exact=False, shapes=None):
    s = te.create_schedule([o.op for o in outputs])
    f = build(s, [*inputs, *outputs], exact=exact)
    outs = [np.full(shape or [int(d) for d in o.shape], np.nan, dtype=o.dtype)
            for o, shape in zip(outputs, shapes or [None] * len(outputs))]
    f(*arrays, *outs)
    return outs


# --- the references against the definitions ---------------------------------------------------

def _direct_conv(a, w, stride, pad, dilation, groups):
    """The NCHW convolution element by element (pad as (top, left, bottom, right))."""
    n, c, h, wd = a.shape
    f, per, kh, kw = w.shape
    top, left, bottom, right = pad
    padded = np.pad(a, ((0, 0), (0, 0), (top, bottom), (left, right)))
    oh = (h + top + bottom - (kh - 1) * dilation - 1) // stride + 1
    ow = (wd + left + right - (kw - 1) * dilation - 1) // stride + 1
    out = np.zeros((n, f, oh, ow))
    for b, o, y, x in itertools.product(range(n), range(f), range(oh), range(ow)):
        g = o // (f // groups)
        for ci, ry, rx in itertools.product(range(per), range(kh), range(kw)):
            out[b, o, y, x] += padded[b, g * per + ci, y * stride + ry * dilation, x * stride + rx * dilation] \
                * w[o, ci, ry, rx]
    return out


def test_references_equal_the_definitions():
    a, w = _data(2, 4, 7, 6), _data(6, 2, 3, 2)
    np.testing.assert_allclose(ref.conv2d_nchw_python(a, w, 2, (1, 0, 2, 1), groups=2, dilation=2),
                               _direct_conv(a, w, 2, (1, 0, 2, 1), 2, 2), rtol=1e-5, atol=1e-5)
    wd = _data(4, 2, 3, 3)  # depthwise: output channel c*2+j reads input c with filter (c, j)
    direct = np.stack([_direct_conv(a[:, c:c + 1], wd[c, j][None, None], 1, (1, 1, 1, 1), 1, 1)[:, 0]
                       for c in range(4) for j in range(2)], axis=1)
    np.testing.assert_allclose(ref.depthwise_conv2d_python_nchw(a, wd, 1, 1), direct, rtol=1e-5, atol=1e-5)
    # the transposed convolution is the adjoint: <conv(x, w), y> = <x, conv_transpose(y, w)>
    x, wt = _data(1, 3, 9, 8), _data(5, 3, 3, 3)  # OIHW for the convolution is IOHW for its transpose
    y = ref.conv2d_nchw_python(x, wt, 2, 1)
    y = _data(*y.shape)
    left = np.sum(ref.conv2d_nchw_python(x, wt, 2, 1) * y)
    right = np.sum(x * ref.conv2d_transpose_nchw_python(y, wt, 2, 1, (0, 1)))
    assert ref.conv2d_transpose_nchw_python(y, wt, 2, 1, (0, 1)).shape == x.shape
    assert abs(left - right) < 1e-3 * abs(left)
    p = _data(1, 2, 5, 5)
    windows = [p[:, :, max(0, y - 1):y + 2, max(0, x - 1):x + 2] for y in range(0, 5, 2) for x in range(0, 5, 2)]
    np.testing.assert_allclose(ref.poolnd_python(p, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), "max", False)
                               .reshape(1, 2, 9), np.stack([wd.max(axis=(2, 3)) for wd in windows], axis=-1), rtol=1e-6)
    # TVM's reference: with the padding counted, a max takes it as 0 (the corners hold padding)
    np.testing.assert_allclose(ref.poolnd_python(p, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), "max").reshape(1, 2, 9),
                               np.stack([np.maximum(wd.max(axis=(2, 3)), 0 if k in (0, 1, 2, 3, 5, 6, 7, 8) else -9)
                                         for k, wd in enumerate(windows)], axis=-1), rtol=1e-6)
    np.testing.assert_allclose(ref.poolnd_python(p, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), "avg",
                                                 count_include_pad=False).reshape(1, 2, 9),
                               np.stack([wd.mean(axis=(2, 3)) for wd in windows], axis=-1), rtol=1e-5)
    np.testing.assert_allclose(ref.poolnd_python(p, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), "avg").reshape(1, 2, 9),
                               np.stack([wd.sum(axis=(2, 3)) / 9 for wd in windows], axis=-1), rtol=1e-5)



def test_the_product_references_compute_in_the_output_dtype():
    """int8 operands of int32 products do not wrap: 127 * 127 summed 32 times is 516128."""
    x, y = np.full((2, 3, 32), 127, "int8"), np.full((2, 4, 32), 127, "int8")
    assert (ref.batch_matmul(x, y, "int32") == 127 * 127 * 32).all()
    assert ref.batch_matmul(x, y, "int32").dtype == np.int32
    assert (ref.dense(x[0], y[0], None, out_dtype="int32") == 127 * 127 * 32).all()


# --- the operators against the references -----------------------------------------------------

CONV_CASES = [  # stride, padding, dilation
    (1, 1, 1),
    (2, (0, 1, 2, 1), 2),
    (2, "SAME", 1),
]


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("stride, padding, dilation", CONV_CASES)
def test_convolutions_equal_references(stride, padding, dilation, exact):
    """conv2d NCHW and NHWC, grouped, depthwise and transposed, in one kernel."""
    a, w, wg, wd, wt = _data(2, 4, 9, 8), _data(6, 4, 3, 3), _data(6, 2, 3, 3), _data(4, 2, 3, 3), _data(4, 5, 3, 3)
    A, W, Wg, Wd, Wt = (te.placeholder(x.shape, name=n) for x, n in zip((a, w, wg, wd, wt), "A W Wg Wd Wt".split()))
    An, Wn = te.placeholder((2, 9, 8, 4), name="An"), te.placeholder((3, 3, 4, 6), name="Wn")
    opad = (stride - 1, 0)
    tpad = padding if not isinstance(padding, str) else 1
    outputs = [topi.nn.conv2d_nchw(A, W, stride, padding, dilation),
               topi.nn.group_conv2d_nchw(A, Wg, stride, padding, dilation, 2),
               topi.nn.conv2d(An, Wn, stride, padding, dilation, data_layout="NHWC"),
               topi.nn.depthwise_conv2d_nchw(A, Wd, stride, padding, dilation),
               topi.nn.conv2d_transpose_nchw(A, Wt, stride, tpad, "float32", opad)]
    an, wn = a.transpose(0, 2, 3, 1).copy(), w.transpose(2, 3, 1, 0).copy()
    got = _run(outputs, [A, W, Wg, Wd, Wt, An, Wn], [a, w, wg, wd, wt, an, wn], exact)
    want = [ref.conv2d_nchw_python(a, w, stride, padding, dilation=dilation),
            ref.conv2d_nchw_python(a, wg, stride, padding, groups=2, dilation=dilation),
            ref.conv2d_nhwc_python(an, wn, stride, padding, dilation=dilation),
            ref.depthwise_conv2d_python_nchw(a, wd, stride, padding, dilation=dilation),
            ref.conv2d_transpose_nchw_python(a, wt, stride, tpad, opad)]
    for t, g, e in zip(outputs, got, want):
        assert g.shape == e.shape, t.op.name
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4, err_msg=t.op.name)


def test_stage_names_and_tags_are_tvms():
    A, W = te.placeholder((1, 4, 8, 8), name="A"), te.placeholder((6, 4, 3, 3), name="W")
    conv = topi.nn.conv2d_nchw(A, W, 1, 1, 1)
    assert (conv.op.name, conv.op.tag) == ("conv2d_nchw", "conv2d_nchw")
    assert conv.op.input_tensors[0].op.name == "pad_temp" and conv.op.input_tensors[0].op.tag == "injective,pad"
    assert [iv.var.name for iv in conv.op.axis] == ["nn", "ff", "yy", "xx"]
    assert [iv.var.name for iv in conv.op.reduce_axis] == ["rc", "ry", "rx"]
    X, Y = te.placeholder((4, 8), name="X"), te.placeholder((5, 8), name="Y")
    d = topi.nn.dense(X, Y)
    assert (d.op.name, d.op.tag) == ("T_matmul_NT", "dense")
    assert (topi.nn.matmul(X, Y, transpose_b=True).op.tag, topi.nn.matmul(X, X, transpose_a=True).op.name) == \
        ("dense", "T_matmul_TN")
    pooled = topi.nn.pool2d(A, 2, 2, 1, (0, 0, 0, 0), "avg")
    assert (pooled.op.name, pooled.op.input_tensors[0].op.name) == ("pool_avg", "pool_sum")
    assert topi.nn.pool2d(A, 3, 1, 1, (1, 1, 1, 1), "max").op.input_tensors[0].op.name == "pad_temp"
    sm = topi.nn.softmax(X)
    assert (sm.op.name, sm.op.tag, sm.op.attrs["axis"]) == ("T_softmax_norm", "softmax_output", 1)
    assert topi.nn.relu(X).op.tag == "elemwise" and topi.nn.depthwise_conv2d_nchw(A, te.placeholder(
        (4, 1, 3, 3), name="D"), 1, 1, 1).op.tag == "depthwise_conv2d_nchw"


@pytest.mark.parametrize("exact", [False, True])
def test_matrix_products_and_pooling(exact):
    """dense with a bias, matmul both ways, batch_matmul with a shared batch; max and average
    pools (ceil mode, padding counted or not), adaptive and global pools, in one kernel."""
    x, y, b, p, q = _data(5, 7), _data(3, 7), _data(3), _data(2, 5, 7), _data(1, 3, 7)
    X, Y, B, P, Q = (te.placeholder(v.shape, name=n) for v, n in zip((x, y, b, p, q), "XYBPQ"))
    a = _data(2, 3, 9, 8)
    A = te.placeholder(a.shape, name="A")
    pools = [(kind, ceil, count) for kind in ("max", "avg") for ceil, count in ((False, True), (True, True),
                                                                                  (True, False))]
    outputs = [topi.nn.dense(X, Y, B), topi.nn.matmul(X, Y, transpose_b=True), topi.nn.matmul(X, X, None, None,
                                                                                                 True, False),
               topi.nn.batch_matmul(P, Q),
               *[topi.nn.pool2d(A, (3, 2), (2, 2), (1, 2), (1, 0, 1, 1), kind, ceil, "NCHW", count)
                 for kind, ceil, count in pools],
               topi.nn.adaptive_pool(A, (4, 3), "max"), topi.nn.adaptive_pool(A, (4, 3), "avg"),
               topi.nn.global_pool(A, "avg")]
    want = [ref.dense(x, y, b, use_bias=True), x @ y.T, x.T @ x, ref.batch_matmul(p, q),
            # the reference's max counts padding as 0 when told to count it; pool2d never does
            *[ref.poolnd_python(a, (3, 2), (2, 2), (1, 2), (1, 0), (1, 1), kind, count and kind == "avg", ceil)
              for kind, ceil, count in pools],
            ref.adaptive_pool(a, (4, 3), "max"), ref.adaptive_pool(a, (4, 3), "avg"), a.mean(axis=(2, 3), keepdims=True)]
    got = _run(outputs, [X, Y, B, P, Q, A], [x, y, b, p, q, a], exact)
    for t, g, e in zip(outputs, got, want):
        assert g.shape == e.shape, t.op.name
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5, err_msg=t.op.name)


@pytest.mark.parametrize("exact", [False, True])
def test_softmax_normalizations_and_activations(exact):
    s, slope, g, be, m, v = _data(3, 5, 4), _data(5), _data(5, 4), _data(5, 4), _data(5), _data(5)
    v = np.abs(v) + 0.5
    S, SL, G, BE, M, V = (te.placeholder(t.shape, name=n) for t, n in zip((s, slope, g, be, m, v),
                                                                         "S SL G BE M V".split()))
    bn = topi.nn.batch_norm(S, SL, M, M, V, axis=1)
    bn_train = topi.nn.batch_norm(S, SL, M, M, V, axis=1, training=True, momentum=0.3)
    outputs = [topi.nn.softmax(S, 1), topi.nn.log_softmax(S), topi.nn.fast_softmax(S, -1), topi.nn.relu(S),
               topi.nn.leaky_relu(S, 0.1), topi.nn.prelu(S, SL), *bn, *bn_train,
               topi.nn.layer_norm(S, G, BE, (1, 2)), topi.nn.lrn(S, 3, 1, 0.1, 0.75, 2.0)]
    want = [ref.softmax_python(s, 1), ref.log_softmax_python(s, -1), ref.softmax_python(s, -1), np.maximum(s, 0),
            np.where(s > 0, s, s * 0.1), np.where(s > 0, s, s * slope[None, :, None]),
            *ref.batch_norm(s, slope, m, m, v, 1, 1e-5, True, True, False, 0.1),
            *ref.batch_norm(s, slope, m, m, v, 1, 1e-5, True, True, True, 0.3),
            ref.layer_norm_python(s, g, be, (1, 2)), ref.lrn_python(s, 3, 1, 2.0, 0.1, 0.75)]
    got = _run(outputs, [S, SL, G, BE, M, V], [s, slope, g, be, m, v], exact)
    for t, out, e in zip(outputs, got, want):
        np.testing.assert_allclose(out, e, rtol=2e-5, atol=2e-5, err_msg=t.op.name)


@pytest.mark.parametrize("exact", [False, True])
def test_upsampling_padding_dilation_and_flatten(exact):
    a = _data(1, 2, 5, 4)
    A = te.placeholder(a.shape, name="A")
    modes = [("nearest_neighbor", False), ("nearest_neighbor", True), ("bilinear", False), ("bilinear", True)]
    outputs = [*[topi.nn.upsampling(A, 2, 1.5, method=m, align_corners=c) for m, c in modes],
               topi.nn.pad(A, (0, 1, 2, 0), (1, 0, 0, 3), 1.5), topi.nn.dilate(A, (1, 1, 2, 3)), topi.nn.flatten(A)]
    want = [*[ref.upsampling_python(a, (2, 1.5), method=m, align_corners=c) for m, c in modes],
            np.pad(a, ((0, 1), (1, 0), (2, 0), (0, 3)), constant_values=1.5), ref.dilate_python(a, (1, 1, 2, 3)),
            a.reshape(1, -1)]
    got = _run(outputs, [A], [a], exact)
    for t, g, e in zip(outputs, got, want):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6, err_msg=t.op.name)


def test_symbolic_batch_and_rows():
    """A symbolic batch through conv, pool, dense and softmax; the build takes it from the arrays."""
    n, h = te.var("n"), te.var("h")
    A, W = te.placeholder((n, 3, h, 6), name="A"), te.placeholder((4, 3, 3, 3), name="W")
    X, Y = te.placeholder((n, 6), name="X"), te.placeholder((2, 6), name="Y")
    a, w, x, y = _data(2, 3, 7, 6), _data(4, 3, 3, 3), _data(2, 6), _data(2, 6)
    outputs = [topi.nn.conv2d_nchw(A, W, 1, 1, 1), topi.nn.pool2d(A, 2, 2, 1, (0, 0, 0, 0), "max"),
               topi.nn.softmax(topi.nn.dense(X, Y))]
    got = _run(outputs, [A, W, X, Y], [a, w, x, y], True, shapes=[(2, 4, 7, 6), (2, 3, 3, 3), (2, 2)])
    np.testing.assert_allclose(got[0], ref.conv2d_nchw_python(a, w, 1, 1), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[1], a[:, :, :6].reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)), rtol=1e-6)
    np.testing.assert_allclose(got[2], ref.softmax_python(x @ y.T), rtol=1e-5)


def _refused(call, error, *words):
    with pytest.raises(error) as info:
        call()
    for w in words:
        assert w in str(info.value), str(info.value)


def test_bad_input_is_refused_with_a_message():
    A, W = te.placeholder((1, 4, 8, 8), name="A"), te.placeholder((6, 4, 3, 3), name="W")
    _refused(lambda: topi.nn.conv2d_nchw(A, W, 0, 1, 1), ValueError, "stride", "at least 1")
    _refused(lambda: topi.nn.conv2d_nchw(A, W, 1, (1, 2, 3), 1), ValueError, "padding")
    _refused(lambda: topi.nn.conv2d_nchw(A, W, 1, "FULL", 1), ValueError, "SAME")
    _refused(lambda: topi.nn.conv2d_nchw(A, te.placeholder((6, 4, 3), name="V"), 1, 1, 1), ValueError,
             "Filter", "4-dimensional")
    _refused(lambda: topi.nn.conv2d_nchw(A, W, 1, 0, 5), ValueError, "does not fit")
    _refused(lambda: topi.nn.conv2d_nchw([1], W, 1, 0, 1), TypeError, "Input")
    _refused(lambda: topi.nn.group_conv2d_nchw(A, te.placeholder((6, 3, 3, 3), name="V"), 1, 1, 1, 2), ValueError,
             "per group")
    _refused(lambda: topi.nn.conv2d(A, W, 1, 1, 1, data_layout="NCHW4c"), ValueError, "layouts")
    _refused(lambda: topi.nn.conv2d_transpose_nchw(A, te.placeholder((4, 2, 3, 3), name="T"), 2, 1, "float32",
                                                   (2, 0)), ValueError, "output_padding")
    _refused(lambda: topi.nn.dense(te.placeholder((3, 5), name="X"), te.placeholder((2, 4), name="Y")), ValueError,
             "inner")
    _refused(lambda: topi.nn.batch_matmul(te.placeholder((2, 3, 5), name="X"), te.placeholder((3, 2, 5), name="Y")),
             ValueError, "batches")
    _refused(lambda: topi.nn.pool2d(A, 2, 2, 1, (0, 0, 0, 0), "min"), ValueError, "pool_type")
    _refused(lambda: topi.nn.pool2d(A, 2, 2, 1, (0, 0), "max"), ValueError, "top, left, bottom, right")
    _refused(lambda: topi.nn.pool2d(A, 2, 2, 1, (0, 0, 0, 0), "max", layout="NCH"), ValueError, "layout")
    _refused(lambda: topi.nn.softmax(A, axis=4), ValueError, "axis")
    _refused(lambda: topi.nn.prelu(A, te.placeholder((3,), name="s")), ValueError, "slope")
    _refused(lambda: topi.nn.upsampling(A, 2, 2, method="cubic"), ValueError, "method")
    _refused(lambda: topi.nn.pad(A, (1, 1)), ValueError, "one value per dimension")
    _refused(lambda: topi.nn.lrn(A, 0), ValueError, "size")
