"""Group and instance normalization, the block rearrangements between space, channels and batch,
and YOLO's reorg: kernels under the generic and CUDA schedules against the NumPy references,
the references against independent evidence (slices, loops, inverses), and the refusals. TVM's
own outputs for most of them are in ``test_tvm_outputs.py``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target
from topi import testing as ref

RNG = np.random.default_rng(17)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _run(style, outs, inputs, arrays):
    """*outs* built under ``topi.<style>.schedule_injective`` (the schedule TVM's tests give them)."""
    with Target("cuda" if style == "cuda" else "llvm"):
        s = getattr(topi, style).schedule_injective(outs)
    got = [np.full([int(d) for d in o.shape], np.nan, "float32") for o in outs]
    build(s, [*inputs, *outs])(*arrays, *got)
    return got


@pytest.mark.parametrize("style", ["generic", "cuda"])
def test_rearrangements_equal_their_references(style):
    x, y = RNG.standard_normal((2, 8, 3, 4)).astype("float32"), RNG.standard_normal((2, 3, 5, 2)).astype("float32")
    X, Y = te.placeholder(x.shape, name="X"), te.placeholder(y.shape, name="Y")
    nhwc = topi.transpose(X, (0, 2, 3, 1))
    last = lambda a: a.transpose(0, 2, 3, 1)  # noqa: E731
    cases = [
        (topi.nn.depth_to_space(X, 2), ref.depth_to_space_python(x, 2)),
        (topi.nn.depth_to_space(X, 2, mode="CRD"), ref.depth_to_space_python(x, 2, "CRD")),
        (topi.nn.depth_to_space(X, 2, mode="CDR"), ref.depth_to_space_python(x, 2, "CRD")),
        (topi.nn.depth_to_space(nhwc, 2, "NHWC", "CRD"), last(ref.depth_to_space_python(x, 2, "CRD"))),
        (topi.nn.space_to_depth(X, 2, "NCHW"), ref.space_to_depth_python(x, 2)),
        (topi.nn.space_to_depth(nhwc, 2, "NHWC"), last(ref.space_to_depth_python(x, 2))),
        (topi.nn.space_to_batch_nd(Y, [2, 3], [1, 0], [0, 1], -1.0),
         ref.space_to_batch_nd_python(y, [2, 3], [1, 0], [0, 1], -1.0)),
        (topi.nn.batch_to_space_nd(X, [2], [1], [0]), ref.batch_to_space_nd_python(x, [2], [1], [0])),
    ]
    for (out, want), got in zip(cases, _run(style, [o for o, _ in cases], [X, Y], [x, y])):
        np.testing.assert_array_equal(got, want, err_msg=out.op.name)


def test_the_block_references_are_each_others_inverses_and_read_the_right_element():
    x = RNG.standard_normal((2, 12, 4, 6))
    np.testing.assert_array_equal(ref.space_to_depth_python(ref.depth_to_space_python(x, 2), 2), x)
    d = ref.depth_to_space_python(x, 2, "DCR")
    c = ref.depth_to_space_python(x, 2, "CRD")
    for oc, yy, xx in itertools.product(range(3), range(8), range(12)):
        at = (yy % 2) * 2 + xx % 2
        assert d[1, oc, yy, xx] == x[1, at * 3 + oc, yy // 2, xx // 2]
        assert c[1, oc, yy, xx] == x[1, oc * 4 + at, yy // 2, xx // 2]
    y = RNG.standard_normal((3, 5, 4, 2))
    blocks = ref.space_to_batch_nd_python(y, [2, 3], [1, 0], [0, 2])
    assert blocks.shape == (18, 3, 2, 2)
    # Output batch (k1 * 3 + k2) * 3 + b holds padded positions (y1 * 2 + k1, y2 * 3 + k2) of batch b.
    padded = np.pad(y, ((0, 0), (1, 0), (0, 2), (0, 0)))
    for ob, y1, y2 in itertools.product(range(18), range(3), range(2)):
        k1, k2, b = ob // 9, ob // 3 % 3, ob % 3
        np.testing.assert_array_equal(blocks[ob, y1, y2], padded[b, y1 * 2 + k1, y2 * 3 + k2])
    np.testing.assert_array_equal(ref.batch_to_space_nd_python(blocks, [2, 3], [1, 0], [0, 2]), y)


def test_space_to_batch_then_batch_to_space_is_the_identity_on_both_kernels():
    y = RNG.standard_normal((2, 3, 5, 2)).astype("float32")
    Y = te.placeholder(y.shape, name="Y")
    back = topi.nn.batch_to_space_nd(topi.nn.space_to_batch_nd(Y, [2, 3], [1, 0], [0, 1]), [2, 3], [1, 0], [0, 1])
    (got,) = _run("generic", [back], [Y], [y])
    np.testing.assert_array_equal(got, y)


def test_reorg_follows_darknets_definition_for_every_batch():
    """Darknet reads the input as (n, c/s^2, h*s, w*s); element (b, k, j, i) of the result
    before its reshape is input[flat] with the flat index below (checked element by element)."""
    n, c, h, w, s = 2, 8, 4, 6, 2
    a = RNG.standard_normal((n, c, h, w)).astype("float32")
    A = te.placeholder(a.shape, name="A")
    for style in ("generic", "cuda"):
        out = topi.vision.reorg(A, s)
        with Target("cuda" if style == "cuda" else "llvm"):
            sch = getattr(topi, style).schedule_reorg([out])
        got = np.full((n, c * s * s, h // s, w // s), np.nan, "float32")
        build(sch, [A, out])(a, got)
        np.testing.assert_array_equal(got, ref.reorg_python(a, s))
    flat_in, per, want = a.reshape(-1), c // (s * s), np.empty((n, c, h, w), "float32")
    for b, k, j, i in itertools.product(range(n), range(c), range(h), range(w)):
        o = k // per
        want[b, k, j, i] = flat_in[i * s + o % s + w * s * (j * s + o // s + h * s * (k % per + per * b))]
    np.testing.assert_array_equal(ref.reorg_python(a, s), want.reshape(n, c * s * s, h // s, w // s))


@pytest.mark.parametrize("shape, channel_axis, axes, groups", [((2, 6, 3, 4), 1, (2, 3), 3), ((2, 5, 4), -1, (1,), 2),
                                                               ((3, 4, 5), 1, (), 4)])
def test_group_norm_normalizes_each_group_of_channels(shape, channel_axis, axes, groups):
    x = RNG.standard_normal(shape).astype("float32")
    channels = shape[channel_axis]
    g, b = RNG.standard_normal(channels).astype("float32"), RNG.standard_normal(channels).astype("float32")
    X, G, B = te.placeholder(shape, name="X"), te.placeholder((channels,), name="G"), te.placeholder((channels,),
                                                                                                        name="B")
    out = topi.nn.group_norm(X, G, B, groups, channel_axis, axes)
    (got,) = _run("generic", [out], [X, G, B], [x, g, b])
    want = ref.group_norm_python(x, g, b, groups, channel_axis, axes)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    # The reference, group by group from slices.
    moved = np.moveaxis(x.astype("float64"), channel_axis, 0)
    size = channels // groups
    expected = np.empty_like(moved)
    for k in range(groups):
        part = moved[k * size:(k + 1) * size]
        over = (0, *(a % x.ndim - (a % x.ndim > channel_axis % x.ndim) + 1 for a in axes))
        mean, var = part.mean(axis=over, keepdims=True), part.var(axis=over, keepdims=True)
        expected[k * size:(k + 1) * size] = (part - mean) / np.sqrt(var + 1e-5)
    expected = np.moveaxis(expected, 0, channel_axis)
    scale = [channels if k == channel_axis % x.ndim else 1 for k in range(x.ndim)]
    np.testing.assert_allclose(want, expected * g.reshape(scale) + b.reshape(scale), rtol=1e-5, atol=1e-6)


def test_instance_norm_and_norms_without_gamma_or_beta():
    x = RNG.standard_normal((2, 3, 5)).astype("float32")
    gm, bt = RNG.standard_normal((3, 5)).astype("float32"), RNG.standard_normal((3, 5)).astype("float32")
    X, G, B = te.placeholder(x.shape, name="X"), te.placeholder(gm.shape, name="G"), te.placeholder(bt.shape, name="B")
    outs = [topi.nn.instance_norm(X, G, B, (1, 2)), topi.nn.layer_norm(X, None, None, (1, 2)),
            topi.nn.instance_norm(X, G, None, (1, 2))]
    assert outs[0].op.name == "T_instance_norm"
    got = _run("generic", outs, [X, G, B], [x, gm, bt])
    plain = ref.layer_norm_python(x, np.ones_like(gm), np.zeros_like(bt), (1, 2))
    for g, want in zip(got, [ref.instance_norm_python(x, gm, bt, (1, 2)), plain,
                             ref.instance_norm_python(x, gm, None, (1, 2))]):
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(plain.mean(axis=(1, 2)), 0, atol=1e-6)
    np.testing.assert_allclose(plain.var(axis=(1, 2)), 1, rtol=1e-3)


@pytest.mark.parametrize("make, message", [
    (lambda X: topi.nn.depth_to_space(X, 2, "NCWH"), "layout 'NCHW' or 'NHWC'"),
    (lambda X: topi.nn.depth_to_space(X, 2, mode="RDC"), "'DCR' or 'CRD'"),
    (lambda X: topi.nn.space_to_depth(X, 0), "block_size must be a positive int"),
    (lambda X: topi.nn.space_to_batch_nd(X, [2, 2], [0], [0, 0]), "pad_before must be 2 non-negative ints"),
    (lambda X: topi.nn.batch_to_space_nd(X, [4], [0], [0]), "multiple of the 4 blocks"),
    (lambda X: topi.nn.space_to_batch_nd(X, [3], [0], [0]), "padded is 8 long, which its block size 3 must divide"),
    (lambda X: topi.nn.group_norm(X, None, None, 3, 1, (2,)), "divides the 8 channels"),
    (lambda X: topi.nn.group_norm(X, None, None, 2, 1, (1, 2)), "must not hold the channel axis"),
    (lambda X: topi.vision.reorg(X, 3), "whose square divides the 8 channels"),
    (lambda X: topi.nn.layer_norm(X, te.placeholder((8,)), None, (1, 2)), "shape of the normalized axes"),
])
def test_bad_arguments_are_refused(make, message):
    X = te.placeholder((2, 8, 4, 6), name="X")
    with pytest.raises(ValueError) as err:
        make(X)
    assert message in str(err.value)


@pytest.mark.parametrize("style", ["generic", "x86", "cuda"])
@pytest.mark.parametrize("training", [False, True])
def test_batch_norm_under_each_schedule(style, training):
    shape, axis = (3, 4, 2, 5), 1
    x = RNG.random(shape).astype("float32")
    g, b, mm, mv = (RNG.random(shape[axis]).astype("float32") for _ in range(4))
    want = ref.batch_norm(x, g, b, mm, mv, axis, 0.01, True, True, training, 0.2)
    X = te.placeholder(shape, name="x")
    G, B, MM, MV = (te.placeholder((shape[axis],), name=n) for n in ("g", "b", "mm", "mv"))
    with Target("cuda" if style == "cuda" else "llvm"):
        outs = topi.nn.batch_norm(X, G, B, MM, MV, axis, 0.01, True, True, training, 0.2)
        s = getattr(topi, style).schedule_batch_norm(outs)
    got = [np.full(w.shape, np.nan, "float32") for w in want]
    build(s, [X, G, B, MM, MV, *outs])(x, g, b, mm, mv, *got)
    for a, w in zip(got, want):
        np.testing.assert_allclose(a, w, rtol=1e-5, atol=1e-6)
