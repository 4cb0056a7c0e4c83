"""topi's element-wise, broadcasting and reduction operators against NumPy, on both targets
(the conftest runs each module on each) and in both bound modes; symbolic shapes where TVM
takes them; tags as TVM's; bad input refused with a message."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build

RNG = np.random.default_rng(0)


def _run(outputs, inputs, arrays, exact, out_dtype=None, out_shapes=None):
    s = te.create_schedule([o.op for o in outputs])
    f = build(s, [*inputs, *outputs], exact=exact)
    outs = [np.full([int(d) for d in (shape or o.shape)], np.nan if (out_dtype or o.dtype).startswith("float") else -7,
                    dtype=out_dtype or o.dtype) for o, shape in zip(outputs, out_shapes or [None] * len(outputs))]
    f(*arrays, *outs)
    return outs


UNARY = [
    (topi.exp, np.exp, (-2, 2)), (topi.log, np.log, (0.1, 3)), (topi.sqrt, np.sqrt, (0, 4)),
    (topi.rsqrt, lambda x: 1 / np.sqrt(x), (0.1, 4)), (topi.tanh, np.tanh, (-3, 3)),
    (topi.sigmoid, lambda x: 1 / (1 + np.exp(-x)), (-5, 5)), (topi.abs, np.abs, (-2, 2)),
    (topi.floor, np.floor, (-3, 3)), (topi.ceil, np.ceil, (-3, 3)), (topi.negative, np.negative, (-2, 2)),
    (topi.sin, np.sin, (-3, 3)), (topi.cos, np.cos, (-3, 3)), (topi.fast_exp, np.exp, (-2, 2)),
    (topi.fast_tanh, np.tanh, (-3, 3)), (topi.log2, np.log2, (0.1, 8)), (topi.trunc, np.trunc, (-3, 3)),
    (topi.log10, np.log10, (0.1, 8)), (topi.sinh, np.sinh, (-3, 3)), (topi.cosh, np.cosh, (-3, 3)),
    (topi.asin, np.arcsin, (-0.99, 0.99)), (topi.acos, np.arccos, (-0.99, 0.99)), (topi.atan, np.arctan, (-4, 4)),
    (topi.asinh, np.arcsinh, (-4, 4)), (topi.acosh, np.arccosh, (1.01, 5)), (topi.atanh, np.arctanh, (-0.9, 0.9)),
]


@pytest.mark.parametrize("exact", [False, True])
def test_unary_operators_equal_numpy(exact):
    """Every operator in one kernel (one compile per target and mode), each output checked."""
    inputs = [te.placeholder((3, 17), name=f"x{k}") for k in range(len(UNARY))]
    outputs = [op(t) for (op, _, _), t in zip(UNARY, inputs)]
    assert {y.op.tag for y in outputs} == {"elemwise"}
    arrays = [RNG.uniform(*interval, (3, 17)).astype("float32") for _, _, interval in UNARY]
    results = _run(outputs, inputs, arrays, exact)
    for (op, ref, _), a, out in zip(UNARY, arrays, results):
        np.testing.assert_allclose(out, ref(a), rtol=2e-6, atol=2e-6, err_msg=op.__name__)


def test_clip_cast_and_symbolic_shapes():
    n = te.var("n")
    x = te.placeholder((n, 4), name="x")
    clipped = topi.clip(x, -0.5, 0.5)
    as_int = topi.cast(topi.multiply(clipped, 10.0), "int32")
    a = RNG.uniform(-2, 2, (5, 4)).astype("float32")
    out, ints = _run([clipped, as_int], [x], [a], True, out_shapes=[(5, 4), (5, 4)])
    np.testing.assert_array_equal(out, np.clip(a, -0.5, 0.5))
    np.testing.assert_array_equal(ints, (np.clip(a, -0.5, 0.5) * 10).astype("int32"))


BINARY = [
    (topi.add, np.add), (topi.subtract, np.subtract), (topi.multiply, np.multiply), (topi.divide, np.divide),
    (topi.maximum, np.maximum), (topi.minimum, np.minimum), (topi.power, np.power),
]


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("shapes", [((4, 1, 3), (5, 1)), ((2, 3), (2, 3)), ((1,), (3, 4)), ((4, 3), ())])
def test_binary_operators_broadcast_as_numpy_does(shapes, exact):
    """Every operator on one pair of shapes in one kernel; a shape () is a number, which takes
    the tensor's dtype."""
    sa, sb = shapes
    a = RNG.uniform(0.5, 2, sa).astype("float32")
    b = RNG.uniform(0.5, 2, sb).astype("float32")
    A = te.placeholder(sa, name="A")
    B = te.placeholder(sb, name="B") if sb != () else 1.5
    outputs = [op(A, B) for op, _ in BINARY]
    expected = [ref(a, b if sb != () else np.float32(1.5)) for _, ref in BINARY]
    results = _run(outputs, [A, *([B] if sb != () else [])], [a, *([b] if sb != () else [])], exact)
    for (op, _), C, want, out in zip(BINARY, outputs, expected, results):
        assert C.op.tag == "broadcast" and tuple(int(d) for d in C.shape) == want.shape, op.__name__
        np.testing.assert_allclose(out, want, rtol=1e-5, err_msg=op.__name__)


def test_comparisons_and_where():
    A = te.placeholder((3, 4), name="A")
    B = te.placeholder((4,), name="B")
    picked = topi.where(topi.greater(A, B), A, topi.negative(A))
    a, b = RNG.standard_normal((3, 4)).astype("float32"), RNG.standard_normal(4).astype("float32")
    (out,) = _run([picked], [A, B], [a, b], True)
    np.testing.assert_array_equal(out, np.where(a > b, a, -a))


REDUCTIONS = [(topi.sum, np.sum), (topi.max, np.max), (topi.min, np.min), (topi.prod, np.prod),
              (topi.argmax, np.argmax), (topi.argmin, np.argmin)]


def _expected(op, ref, data, axis, keepdims):
    if op not in (topi.argmax, topi.argmin):
        return ref(data, axis=axis, keepdims=keepdims)
    axes = tuple(range(data.ndim)) if axis is None else tuple(a % data.ndim for a in np.atleast_1d(axis))
    moved = np.moveaxis(data, axes, range(-len(axes), 0))  # the index is row-major within the reduced axes
    index = ref(moved.reshape(*moved.shape[:data.ndim - len(axes)], -1), axis=-1)
    return np.expand_dims(index, axes) if keepdims else index


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), (-1, True), ((0, 2), False), ((0, 2), True)])
def test_reductions_equal_numpy(axis, keepdims, exact):
    """Every reduction over one choice of axes in one kernel; ties go to the first index, as
    NumPy's argmax and argmin choose."""
    data = RNG.integers(-4, 5, (3, 4, 5)).astype("float32")
    data[1, 2, 3] = data.max()
    inputs = [te.placeholder(data.shape, name=f"A{k}") for k in range(len(REDUCTIONS))]
    outputs = [op(A, axis=axis, keepdims=keepdims) for (op, _), A in zip(REDUCTIONS, inputs)]
    results = _run(outputs, inputs, [data] * len(inputs), exact)
    for (op, ref), out_t, out in zip(REDUCTIONS, outputs, results):
        index_op = op in (topi.argmax, topi.argmin)
        assert out_t.op.tag == ("comm_reduce_idx" if index_op else "comm_reduce"), op.__name__
        assert out_t.dtype == ("int32" if index_op else "float32")
        want = np.asarray(_expected(op, ref, data, axis, keepdims))
        assert out.shape == want.shape, op.__name__
        np.testing.assert_array_equal(out, want, err_msg=op.__name__)


@pytest.mark.parametrize("bad, error, match", [
    (lambda: topi.add(te.placeholder((3,)), te.placeholder((4,))), ValueError, r"\(3\) and \(4\) do not broadcast"),
    (lambda: topi.sum(te.placeholder((3, 4)), axis=2), ValueError, "axis 2 is not an axis"),
    (lambda: topi.sum(te.placeholder((3, 4)), axis=(1, -1)), ValueError, "names an axis twice"),
    (lambda: topi.exp(3.0), TypeError, "topi.exp: takes a tensor"),
    (lambda: topi.argmax([1, 2]), TypeError, "topi.argmax: takes a tensor"),
    (lambda: topi.where(1, 2, 3), TypeError, "the condition is a tensor"),
])
def test_bad_input_is_refused(bad, error, match):
    with pytest.raises(error, match=match):
        bad()


def test_two_numbers_give_an_expression():
    """As TVM's: no tensor, so no compute; the constants fold."""
    assert str(topi.add(2, 3)) == "5" and str(topi.maximum(2.0, 7.5)) == "7.500000f"


def test_bit_logical_and_sign_operators_as_numpy():
    A = te.placeholder((2, 4), name="A", dtype="int32")
    B = te.placeholder((4,), name="B", dtype="int32")
    P = te.placeholder((2, 4), name="P", dtype="bool")
    Q = te.placeholder((4,), name="Q", dtype="bool")
    a = np.array([[-5, 3, 8, 13], [0, -1, 6, 7]], "int32")
    b = np.array([3, -2, 5, 2], "int32")
    p = np.array([[1, 1, 0, 0], [0, 1, 0, 1]], bool)
    q = np.array([1, 0, 1, 0], bool)
    cases = [(topi.bitwise_and(A, B), a & b), (topi.bitwise_or(A, B), a | b), (topi.bitwise_xor(A, B), a ^ b),
             (topi.right_shift(A, 1), a >> 1), (topi.left_shift(A, 2), a << 2), (topi.floor_mod(A, B), np.mod(a, b)),
             (topi.bitwise_not(A), ~a), (topi.sign(A), np.sign(a)), (topi.logical_and(P, Q), p & q),
             (topi.logical_or(P, Q), p | q), (topi.logical_xor(P, Q), p ^ q), (topi.logical_not(P), ~p)]
    outs = [c[0] for c in cases]
    f = build(te.create_schedule([o.op for o in outs]), [A, B, P, Q, *outs])
    got = [np.full(e.shape, 7, dtype=e.dtype) for _, e in cases]
    f(a, b, p, q, *got)
    for g, (_, e) in zip(got, cases):
        np.testing.assert_array_equal(g, e)


def test_float_math_takes_bool_and_integer_tensors_as_float32():
    P = te.placeholder((4,), name="P", dtype="bool")
    N = te.placeholder((4,), name="N", dtype="int32")
    outs = [topi.sqrt(topi.exp(P)), topi.log(N), topi.sigmoid(N)]
    assert [o.dtype for o in outs] == ["float32"] * 3
    p, n = np.array([1, 0, 1, 0], bool), np.array([1, 2, 3, 40], "int32")
    got = [np.full(4, np.nan, "float32") for _ in outs]
    build(te.create_schedule([o.op for o in outs]), [P, N, *outs])(p, n, *got)
    fp, fn = p.astype("float32"), n.astype("float32")
    for g, e in zip(got, [np.sqrt(np.exp(fp)), np.log(fn), 1 / (1 + np.exp(-fn))]):
        np.testing.assert_allclose(g, e, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_isnan_isinf_isfinite_as_numpy(dtype):
    A = te.placeholder((6,), name="A", dtype=dtype)
    N = te.placeholder((2,), name="N", dtype="int32")
    a = np.array([1.5, np.nan, np.inf, -np.inf, 0.0, -2.0], dtype)
    outs = [topi.isnan(A), topi.isinf(A), topi.isfinite(A), topi.isnan(N), topi.isfinite(N)]
    # TVM's intrinsics, each a bool call of the element
    assert [o.op.body[0].op.name for o in outs[:3]] == ["tir.isnan", "tir.isinf", "tir.isfinite"]
    assert all(o.op.body[0].dtype == "bool" for o in outs[:3])
    got = [np.zeros([int(d) for d in o.shape], bool) for o in outs]
    build(te.create_schedule([o.op for o in outs]), [A, N, *outs])(a, np.array([3, -1], "int32"), *got)
    for g, e in zip(got, [np.isnan(a), np.isinf(a), np.isfinite(a), [False, False], [True, True]]):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("source, dtype", [("float32", "int32"), ("float16", "int16"), ("int32", "float32"),
                                           ("uint64", "float64"), ("int8", "uint8")])
def test_reinterpret_is_numpys_view(source, dtype):
    rng = np.random.default_rng(4)
    if source.startswith("float"):
        a = (rng.standard_normal(40) * 1000).astype(source)
        a[3], a[4], a[5] = np.nan, np.inf, -0.0
    else:
        a = rng.integers(np.iinfo(source).min // 2, np.iinfo(source).max // 2, 40, dtype=source)
    A = te.placeholder((40,), name="A", dtype=source)
    B = topi.reinterpret(A, dtype)
    assert B.op.body[0].op.name == "tir.reinterpret"
    s = te.create_schedule(B.op)
    s[B].vectorize(s[B].split(B.op.axis[0], 8)[1])
    got = np.zeros(40, dtype)
    build(s, [A, B])(a, got)
    bits = f"u{got.itemsize}"
    np.testing.assert_array_equal(got.view(bits), a.view(dtype).view(bits))
    with pytest.raises(ValueError, match="same width"):
        topi.reinterpret(A, "int64" if source != "uint64" else "int32")


@pytest.mark.parametrize("exact", [False, True])
def test_elemwise_sum_adds_tensors_of_one_shape(exact):
    n = te.var("n")
    xs = [te.placeholder((n, 3), name=f"x{k}") for k in range(3)]
    out = topi.elemwise_sum(xs)
    assert out.op.name == "T_elemwise_sum" and out.op.tag == "elemwise"
    arrays = [RNG.uniform(-1, 1, (4, 3)).astype("float32") for _ in xs]
    (got,) = _run([out], xs, arrays, exact, out_shapes=[(4, 3)])
    np.testing.assert_allclose(got, sum(arrays), rtol=1e-6)
    with pytest.raises(ValueError, match="tensor 'y' .* differs from 'x0'"):
        topi.elemwise_sum([xs[0], te.placeholder((n, 4), name="y")])
    with pytest.raises(TypeError, match="non-empty list of tensors"):
        topi.elemwise_sum([])
