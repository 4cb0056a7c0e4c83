"""The convolutions of one and three spatial dimensions, grouped and transposed: their NumPy
references against independent evidence (the 2-d reference, direct loops, the adjoint
identity), TVM's stage and axis names, and the refusals. The kernels themselves are checked
under every schedule in ``test_every_schedule.py`` and against TVM's outputs in
``test_tvm_outputs.py``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target
from topi import testing as ref
from topi.utils import get_pad_tuple, get_pad_tuple1d, get_pad_tuple3d

RNG = np.random.default_rng(11)


def test_same_padding_puts_an_odd_excess_before_as_tvm_does():
    # TVM v0.13 and 0.27 both answer (1, 2, 0, 1) for a 2 x 4 kernel.
    assert get_pad_tuple("SAME", (2, 4)) == (1, 2, 0, 1)
    assert get_pad_tuple1d("SAME", (4,)) == (2, 1)
    assert get_pad_tuple3d("SAME", (3, 2, 1)) == (1, 1, 0, 1, 0, 0)
    assert get_pad_tuple3d((1, 2, 3), (3, 3, 3)) == (1, 2, 3, 1, 2, 3)
    assert get_pad_tuple1d((2, 0), (3,)) == (2, 0)


@pytest.mark.parametrize("stride, padding, dilation", [(1, "VALID", 1), (2, "SAME", 1), (1, "SAME", 2), (3, (2, 1), 2)])
def test_the_1d_reference_is_the_2d_one_over_a_single_row(stride, padding, dilation):
    a, w = RNG.standard_normal((2, 4, 13)), RNG.standard_normal((6, 2, 4))
    got = ref.group_conv1d_ncw_python(a, w, stride, padding, dilation, 2)
    pad2 = padding if isinstance(padding, str) else (0, padding[0], 0, padding[1])
    want = ref.conv2d_nchw_python(a[:, :, None], w[:, :, None], (1, stride), pad2, groups=2, dilation=(1, dilation))
    np.testing.assert_allclose(got, want[:, :, 0], rtol=1e-12)


def test_the_3d_reference_equals_direct_loops():
    a, w = RNG.standard_normal((1, 4, 4, 5, 3)), RNG.standard_normal((4, 2, 2, 3, 2))
    got = ref.conv3d_ncdhw_python(a, w, (2, 1, 1), (1, 0, 1, 0, 1, 0), groups=2)
    padded = np.pad(a, ((0, 0), (0, 0), (1, 0), (0, 1), (1, 0)))
    want = np.zeros_like(got)
    for f, d, h, x in itertools.product(*(range(n) for n in got.shape[1:])):
        g = f // 2
        window = padded[0, 2 * g:2 * g + 2, 2 * d:2 * d + 2, h:h + 3, x:x + 2]
        want[0, f, d, h, x] = (window * w[f]).sum()
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("size, kernel, stride, padding, groups", [
    ((9,), (3,), (2,), 1, 1), ((8,), (4,), (3,), "SAME", 2), ((5, 6, 4), (2, 3, 2), (2, 1, 2), (1, 0, 1), 1),
    ((6, 7), (3, 2), (2, 2), (1, 0, 0, 1), 2)])
def test_each_transposed_reference_is_the_adjoint_of_its_convolution(size, kernel, stride, padding, groups):
    """<conv(x, w), g> == <x, conv_transpose(g, w)>, the output padding chosen to give x's size."""
    x = RNG.standard_normal((2, 4, *size))
    w = RNG.standard_normal((6, 4 // groups, *kernel))
    y = ref.conv_ncx_python(x, w, stride, padding, 1, groups)
    g = RNG.standard_normal(y.shape)
    before, after = topi.utils.get_pad_tuple_generic(padding, kernel)
    extra = [n - ((m - 1) * s - b - e + k) for n, m, s, b, e, k in zip(size, y.shape[2:], stride, before, after, kernel)]
    back = ref.conv_transpose_ncx_python(g, w, stride, padding, extra, groups)
    assert back.shape == x.shape
    np.testing.assert_allclose((y * g).sum(), (x * back).sum(), rtol=1e-10)


def test_stage_and_axis_names_are_tvms():
    """As TVM 0.27 names them (its conv3d_ndhwc: axes nn yy xx zz ff, reduction ry rx rz rc)."""
    out = topi.nn.conv3d_ndhwc(te.placeholder((1, 5, 6, 7, 4)), te.placeholder((3, 3, 3, 4, 6)), 1, "SAME", 1, 1)
    assert (out.op.name, out.op.tag) == ("conv3d_ndhwc", "conv3d_ndhwc")
    assert [iv.var.name for iv in out.op.axis] == ["nn", "yy", "xx", "zz", "ff"]
    assert [iv.var.name for iv in out.op.reduce_axis] == ["ry", "rx", "rz", "rc"]
    assert out.op.input_tensors[0].op.name == "pad_temp"
    grouped = topi.nn.group_conv1d_ncw(te.placeholder((1, 4, 9)), te.placeholder((6, 2, 3)), 1, 0, 1, 2)
    assert grouped.op.name == "group_conv1d_ncw" and [iv.var.name for iv in grouped.op.axis] == ["nn", "ff", "yy"]
    tr = topi.nn.conv1d_transpose_ncw(te.placeholder((1, 4, 9)), te.placeholder((4, 6, 3)), 2, 1, "float32", 1)
    assert (tr.op.name, tr.op.tag) == ("compute", "conv1d_transpose_ncw")
    assert [t.op.name for t in tr.op.input_tensors] == ["data_pad", "kernel"]
    assert [int(d) for d in tr.shape] == [1, 6, 18]


def test_symbolic_length_conv1d_computes_for_any_length():
    n = te.var("n")
    A, W = te.placeholder((1, 3, n), name="A"), te.placeholder((2, 3, 3), name="W")
    B = topi.nn.conv1d_ncw(A, W, 1, 1, 1)
    f = build(topi.x86.schedule_conv1d_ncw([B]), [A, W, B])
    for length in (1, 7, 20):
        a, w = RNG.standard_normal((1, 3, length)).astype("float32"), RNG.standard_normal((2, 3, 3)).astype("float32")
        b = np.full((1, 2, length), np.nan, "float32")
        f(a, w, b)
        np.testing.assert_allclose(b, ref.conv1d_ncw_python(a, w, 1, 1, 1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make, message", [
    (lambda: topi.nn.conv(te.placeholder((1, 4, 9)), te.placeholder((2, 4, 3)), 1, 0, 1, 1, "NCHW"),
     "must name 3 dimensions"),
    (lambda: topi.nn.conv1d_ncw(te.placeholder((1, 4, 9)), te.placeholder((2, 4, 3, 1))), "same spatial"),
    (lambda: topi.nn.group_conv1d_ncw(te.placeholder((1, 4, 9)), te.placeholder((3, 2, 3)), groups=2),
     "2 groups must divide"),
    (lambda: topi.nn.group_conv1d_ncw(te.placeholder((1, 4, 9)), te.placeholder((4, 1, 3)), groups=2),
     "reads 1 channels per group"),
    (lambda: topi.nn.conv3d_ncdhw(te.placeholder((1, 4, 5, 5, 5)), te.placeholder((2, 4, 3, 3, 3)), 1, (1, 2), 1, 1),
     "padding takes one value, 3"),
    (lambda: topi.nn.conv1d_ncw(te.placeholder((1, 4, 3)), te.placeholder((2, 4, 5))), "does not fit"),
    (lambda: topi.nn.conv1d_transpose_ncw(te.placeholder((1, 4, 9)), te.placeholder((4, 2, 3)), 2, 0, "float32", 2),
     "must be smaller than the strides"),
    (lambda: topi.nn.conv3d_transpose_ncdhw(te.placeholder((1, 4, 3, 3, 3)), te.placeholder((4, 2, 2, 2, 2)), 1, 2,
                                            "float32", 0), "larger than the kernel"),
    (lambda: topi.nn.group_conv2d_transpose_nchw(te.placeholder((1, 5, 4, 4)), te.placeholder((5, 2, 3, 3)), 1, 0,
                                                 "float32", 0, 2), "2 groups must divide the input channels (5)"),
    (lambda: te.compute((2, 3), lambda *i: 1.0, varargs_names=["a"]), "varargs_names must be 2 names"),
    (lambda: topi.nn.conv1d_ncw(None, None), "inp must be a tensor"),
    (lambda: topi.nn.conv(te.placeholder((1, 4, 9)), te.placeholder((2, 4, 3)), 1, 0, 1, 1, None), "layouts are strings"),
    (lambda: topi.nn.conv2d_winograd_nchw(None, None, 1, 0, 1, "float32"), "data must be a 4-d tensor"),
    (lambda: topi.nn.sparse_conv2d(te.placeholder((1, 3, 3, 4)), None, None, None), "takes a tensor"),
])
def test_bad_arguments_are_refused_with_what_to_change(make, message):
    with pytest.raises((ValueError, TypeError, te.ScheduleError)) as err:
        make()
    assert message in str(err.value)


def test_varargs_names_name_the_axes():
    out = te.compute((2, 3), lambda *i: i[0] + i[1], name="T", varargs_names=["row", "col"])
    assert [iv.var.name for iv in out.op.axis] == ["row", "col"]
    f = build(te.create_schedule(out.op), [out])
    got = np.full((2, 3), -1, "int32")
    f(got)
    np.testing.assert_array_equal(got, np.add.outer(np.arange(2), np.arange(3)))


def _blocked(x, bn):
    n, c, h, w = x.shape
    return x.reshape(n, c // bn, bn, h, w).transpose(0, 1, 3, 4, 2)


def _blocked_kernel(k, ib, ob):
    o, i, kh, kw = k.shape
    return k.reshape(o // ob, ob, i // ib, ib, kh, kw).transpose(0, 2, 4, 5, 3, 1)


@pytest.mark.parametrize("style", ["generic", "x86", "cuda"])
@pytest.mark.parametrize("channels, filters, size, kernel, stride, padding, dilation, groups, ib, ob, epilogue", [
    (8, 16, 7, 3, 1, 1, 1, 1, 4, 8, True), (6, 6, 9, 3, 2, 0, 1, 1, 3, 3, False),
    (8, 8, 6, 3, 1, "SAME", 2, 2, 4, 4, True)])
def test_conv2d_nchwc_is_the_nchw_convolution_in_blocks(style, channels, filters, size, kernel, stride, padding,
                                                        dilation, groups, ib, ob, epilogue):
    """The blocked convolution (grouped, dilated, a bias and relu epilogue) equals the NCHW
    reference with its data, kernel and output moved into blocks."""
    a = RNG.standard_normal((2, channels, size, size)).astype("float32")
    w = RNG.standard_normal((filters, channels // groups, kernel, kernel)).astype("float32")
    b = RNG.standard_normal((filters, 1, 1)).astype("float32")
    want = ref.conv2d_nchw_python(a, ref.dilate_python(w, (1, 1, dilation, dilation)), stride, padding, groups)
    if epilogue:
        want = np.maximum(want + b, 0)
    A = te.placeholder((2, channels // ib, size, size, ib), name="A")
    W = te.placeholder((filters // ob, channels // ib // groups, kernel, kernel, ib, ob), name="W")
    B = te.placeholder((filters // ob, 1, 1, ob), name="B")
    with Target("cuda" if style == "cuda" else "llvm"):
        C = topi.nn.conv2d_NCHWc(A, W, (stride, stride), padding, (dilation, dilation), f"NCHW{ib}c", f"NCHW{ob}c")
        assert C.op.name == "conv2d_NCHWc"
        if epilogue:
            C = topi.nn.relu(topi.add(C, B))
        s = getattr(topi, style).schedule_conv2d_NCHWc([C])
    got = np.full([int(d) for d in C.shape], np.nan, "float32")
    build(s, [A, W, B, C])(_blocked(a, ib), _blocked_kernel(w, ib, ob), b.reshape(filters // ob, ob, 1, 1).transpose(
        0, 2, 3, 1), got)
    np.testing.assert_allclose(got, _blocked(want.astype("float32"), ob), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("batch, size, channels, multiplier, kernel, stride, padding", [
    (2, 7, 3, 2, 3, 1, "SAME"), (1, 9, 2, 1, 3, 2, 1), (1, 8, 2, 2, 2, 2, "VALID")])
def test_depthwise_gradients_are_the_adjoints_of_the_convolution(batch, size, channels, multiplier, kernel, stride,
                                                                 padding):
    """The convolution is linear in its input and in its kernel: <conv(x, f), g> equals
    <x, grad_input(g)> and <f, grad_weight(x, g)>; and both under the CUDA schedules."""
    x = RNG.standard_normal((batch, size, size, channels)).astype("float32")
    f = RNG.standard_normal((kernel, kernel, channels, multiplier)).astype("float32")
    y = ref.depthwise_conv2d_python_nhwc(x, f, stride, padding)
    g = RNG.standard_normal(y.shape).astype("float32")
    F, G, X = te.placeholder(f.shape, name="F"), te.placeholder(g.shape, name="G"), te.placeholder(x.shape, name="X")
    grad_in = topi.nn.depthwise_conv2d_backward_input_nhwc(F, G, y.shape, x.shape, stride, padding)
    grad_w = topi.nn.depthwise_conv2d_backward_weight_nhwc(X, G, y.shape, f.shape, stride, padding)
    with Target("cuda"):
        s_in = topi.cuda.schedule_depthwise_conv2d_backward_input_nhwc([grad_in])
        s_w = topi.cuda.schedule_depthwise_conv2d_backward_weight_nhwc([grad_w])
    a, b = np.full(x.shape, np.nan, "float32"), np.full(f.shape, np.nan, "float32")
    build(s_in, [F, G, grad_in])(f, g, a)
    build(s_w, [X, G, grad_w])(x, g, b)
    inner = float((y.astype("float64") * g).sum())
    np.testing.assert_allclose(float((x.astype("float64") * a).sum()), inner, rtol=1e-4)
    np.testing.assert_allclose(float((f.astype("float64") * b).sum()), inner, rtol=1e-4)


@pytest.mark.parametrize("style", ["arm_cpu", "mali", "cuda"])
@pytest.mark.parametrize("batch, channels, size, filters, padding", [(1, 3, 8, 4, 1), (2, 5, 11, 3, 0),
                                                                     (1, 4, 7, 6, (1, 0, 2, 1))])
def test_nchw_winograd_equals_the_direct_convolution(style, batch, channels, size, filters, padding):
    a = RNG.standard_normal((batch, channels, size, size)).astype("float32")
    w = RNG.standard_normal((filters, channels, 3, 3)).astype("float32")
    want = ref.conv2d_nchw_python(a, w, 1, padding)
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    target = getattr(topi, style)
    with Target("cuda" if style == "cuda" else "llvm"):
        C = topi.nn.relu(target.conv2d_nchw_winograd(A, W, 1, padding, 1, "float32"))
        s = target.schedule_conv2d_nchw_winograd([C])
    got = np.full(want.shape, np.nan, "float32")
    build(s, [A, W, C])(a, w, got)
    np.testing.assert_allclose(got, np.maximum(want, 0), rtol=1e-4, atol=2e-4)
    plain = topi.nn.conv2d_winograd_nchw(A, W, 1, padding, 1, "float32")
    assert plain.op.tag == "conv2d_winograd_nchw" and [int(d) for d in plain.shape] == list(want.shape)
