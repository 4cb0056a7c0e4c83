"""TVM's test_te_autodiff, written anew: te.gradient of element-wise operations, math calls,
sums, maxima, products and chains of stages (topi's conv2d, pooling, dense, softmax,
log_softmax, reshape, concatenate, split, take, broadcast_to and activations among them),
checked against central finite differences of the built forward function; the gradients
build and run on both targets."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build


def _shape(t: te.Tensor) -> tuple[int, ...]:
    return tuple(int(d) for d in t.shape)


def check_grad(out, inputs, data_range=(-10.0, 10.0), desired=None, seed=0, args=()):
    """The gradient of sum(out) with respect to *inputs* (*args*: other inputs, held fixed)."""
    inputs = inputs if isinstance(inputs, list) else [inputs]
    args = list(args)
    forward = build(te.create_schedule(out.op), [out, *inputs, *args])
    ones = te.compute(out.shape, lambda *i: te.const(1.0), name="ones")
    grads = te.gradient(out, inputs, head=ones)
    backward = build(te.create_schedule([g.op for g in grads]), [*grads, *inputs, *args])
    rng = np.random.default_rng(seed)
    data = [rng.uniform(*data_range, size=_shape(x)).astype("float32") for x in inputs]
    fixed = [rng.integers(int(data_range[0]), int(data_range[1]), size=_shape(x)).astype(x.dtype)
             if "int" in x.dtype else rng.uniform(*data_range, size=_shape(x)).astype(x.dtype) for x in args]
    got = [np.full(_shape(x), np.nan, "float32") for x in inputs]
    backward(*got, *data, *fixed)
    if desired is not None:
        for g, d in zip(got, desired):
            np.testing.assert_allclose(g, d, rtol=0.1, atol=1e-2)
        return

    def total(arrays):
        o = np.zeros(_shape(out), "float32")
        forward(o, *arrays, *fixed)
        return float(o.astype("float64").sum())

    for k, x in enumerate(data):
        numeric = np.zeros(x.shape)
        for idx in np.ndindex(x.shape):
            eps = 1e-2 * max(1.0, abs(float(x[idx])))
            plus, minus = [d.copy() for d in data], [d.copy() for d in data]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            numeric[idx] = (total(plus) - total(minus)) / (float(plus[k][idx]) - float(minus[k][idx]))
        np.testing.assert_allclose(got[k], numeric, rtol=0.1, atol=2e-2 * max(1.0, np.abs(numeric).max()))


SHAPE = (4, 4)


def _inputs():
    return te.placeholder(SHAPE, name="A0"), te.placeholder(SHAPE, name="A1"), te.reduce_axis((0, 4), name="k")


@pytest.mark.parametrize("case", ["copy", "add", "transpose_add", "exp", "log_abs", "sigmoid", "tanh", "sqrt",
                                  "power", "mul"])
def test_basic_operation(case):
    A0, A1, _ = _inputs()
    bodies = {
        "copy": (lambda i, j: A0[i, j], [A0], (-10, 10)),
        "add": (lambda i, j: A0[i, j] + A1[i, j], [A0, A1], (-10, 10)),
        "transpose_add": (lambda i, j: A0[i, j] + A0[j, i], [A0], (-10, 10)),
        "exp": (lambda i, j: A0[i, j] + te.exp(A0[j, i]), [A0], (-2, 2)),
        "log_abs": (lambda i, j: te.log(0.1 + te.abs(A0[i, j] + te.exp(A0[j, i]))), [A0], (-2, 2)),
        "sigmoid": (lambda i, j: te.sigmoid(A0[i, j] * A0[i, j] * A0[j, i]), [A0], (-1, 1)),
        "tanh": (lambda i, j: te.tanh(A0[i, j] * A0[i, j] * A0[j, i]), [A0], (-1, 1)),
        "sqrt": (lambda i, j: te.sqrt(A0[i, j] * A0[i, j] * A0[j, i]), [A0], (0.1, 10)),
        "power": (lambda i, j: te.power(te.abs(A0[i, j]), A0[j, i]), [A0], (0.5, 2)),
        "mul": (lambda i, j: A0[i, j] * (A1[j, i] + A0[j, i]), [A0, A1], (-10, 10)),
    }
    body, inputs, data_range = bodies[case]
    check_grad(te.compute(SHAPE, body, name="B"), inputs, data_range)


@pytest.mark.parametrize("fn", ["floor", "ceil", "trunc", "round"])
def test_rounding_has_no_gradient(fn):
    A0, _, _ = _inputs()
    B = te.compute(SHAPE, lambda i, j: getattr(te, fn)(A0[i, j]), name="B")
    check_grad(B, A0, desired=[np.zeros(SHAPE)])


@pytest.mark.parametrize("case", ["sum", "sum_plus", "max", "prod", "clamped_index"])
def test_reductions(case):
    A0, _, k = _inputs()
    prod = te.comm_reducer(lambda x, y: x * y, lambda t: te.const(1, t), name="prod")
    outs = {
        "sum": lambda: te.compute((4,), lambda i: te.sum(A0[i, k] * A0[k, i], axis=k), name="B"),
        "sum_plus": lambda: te.compute(SHAPE, lambda i, j: te.sum(A0[i, k] * A0[k, i] + 5, axis=k), name="B"),
        "max": lambda: te.compute(SHAPE, lambda i, j: te.max(A0[i, k] * A0[k, j] + 5, axis=k), name="B"),
        "prod": lambda: te.compute(SHAPE, lambda i, j: prod(A0[i, k] + A0[k, i], axis=k), name="B"),
        "clamped_index": lambda: te.compute(SHAPE, lambda i, j: te.sum(
            A0[k, k] - A0[te.min(j + k, 3), j] * A0[i, k], axis=k), name="B"),
    }
    check_grad(outs[case](), A0, (0.5, 2) if case == "prod" else (-10, 10))


def test_a_chain_of_stages_into_a_scalar():
    X = te.placeholder((6,), name="X")
    A = te.compute((6,), lambda i: X[i] + X[5 - i], name="A")
    B = te.compute((6,), lambda i: X[i] * X[5 - i], name="Bm")
    k = te.reduce_axis((0, 6), name="k")
    check_grad(te.compute((), lambda: te.sum(A[k] * B[k], axis=k), name="Y"), X)


def test_topi_conv2d_relu_conv2d():
    X = te.placeholder((1, 2, 4, 4), name="X")
    W = te.placeholder((3, 2, 3, 3), name="W")
    W1 = te.placeholder((2, 3, 3, 3), name="W1")
    relu = topi.nn.relu(topi.nn.conv2d_nchw(X, W, 1, 1, 1))
    check_grad(topi.nn.conv2d_nchw(relu, W1, 1, 0, 1), [X, W, W1], data_range=(-1, 1))


@pytest.mark.parametrize("kind", ["avg", "max"])
def test_topi_pool(kind):
    X = te.placeholder((1, 2, 4, 4), name="X")
    check_grad(topi.nn.pool2d(X, 2, 2, 1, (0, 0, 0, 0), kind), X)
    check_grad(topi.nn.pool2d(X, 3, 2, 1, (1, 1, 1, 1), kind, count_include_pad=False), X)


def test_topi_dense_softmax_rows():
    X = te.placeholder((3, 5), name="X")
    W = te.placeholder((4, 5), name="W")
    check_grad(topi.nn.softmax(topi.nn.dense(X, W)), [X, W], data_range=(-1, 1))


def test_identity_head_gives_the_jacobian():
    X = te.placeholder((3,), name="X")
    Y = te.compute((3,), lambda i: X[i] * X[i], name="Y")
    (J,) = te.gradient(Y, [X])
    assert _shape(J) == (3, 3)
    x = np.array([1.0, 2.0, 3.0], "float32")
    j = np.full((3, 3), np.nan, "float32")
    build(te.create_schedule(J.op), [J, X])(j, x)
    np.testing.assert_array_equal(j, np.diag(2 * x))


def test_bad_arguments():
    X = te.placeholder((3,), name="X")
    with pytest.raises(TypeError, match="gradient: output and inputs must be tensors"):
        te.gradient(X, [3])
    I = te.placeholder((3,), name="I", dtype="int32")
    with pytest.raises(ValueError, match="differentiate a float tensor"):
        te.gradient(I, [I])


def test_reduction_init():
    A0, _, k = _inputs()
    check_grad(te.compute((4,), lambda i: te.sum(A0[i, k] * A0[k, i], axis=k, init=0.0), name="B"), A0)
    B = te.compute((4,), lambda i: te.sum(A0[i, k], axis=k, init=A0[i, 0]), name="B")
    with pytest.raises(ValueError, match="differentiate a reduction with a constant init"):
        te.gradient(B, [A0])


def _conv2d_residual():
    X = te.placeholder((1, 2, 5, 5), name="X")
    W = te.placeholder((2, 2, 3, 3), name="W")
    first = X + topi.nn.conv2d_nchw(X, W, 1, 1, 1)
    return X, W, X + topi.nn.conv2d_nchw(first, W, 1, 1, 1)


def test_topi_reshape_and_broadcast():
    X = te.placeholder((1, 2, 5, 5), name="X")
    check_grad(topi.reshape(X, (1, 50)), [X])
    W2 = te.placeholder((1,), name="W2")
    check_grad(topi.broadcast_to(W2, (5, 2, 3, 3)), [W2])
    X4 = te.placeholder((1, 2, 4, 4), name="X4")
    check_grad(topi.nn.conv2d_nchw(X4, topi.broadcast_to(W2, (5, 2, 3, 3)), 1, 1, 1), [X4, W2], data_range=(-1, 1))


@pytest.mark.parametrize("head", ["softmax", "sigmoid", "tanh", "log_softmax"])
def test_topi_functions_of_a_residual_conv2d(head):
    X, W, R = _conv2d_residual()
    flat = topi.reshape(R, (1, 50))
    S = getattr(topi.nn, head)(flat) if head in ("softmax", "log_softmax") else getattr(topi, head)(flat)
    check_grad(S, [X, W], data_range=(-1, 1))
    if head == "log_softmax":
        check_grad(S, [W], data_range=(-1, 1), args=[X])


def test_topi_concatenate_and_split():
    X = te.placeholder((1, 2, 3, 5), name="X")
    Y = te.placeholder((1, 2, 7, 5), name="Y")
    check_grad(topi.concatenate([X, Y], 2), [X, Y])
    X = te.placeholder((1, 2, 6, 5), name="X")
    S, R = topi.split(X, 2, 2)
    check_grad(S, [X])
    check_grad(R, [X])
    check_grad(topi.concatenate([S, R], 2), [X])
    check_grad(topi.concatenate([R, S], 2), [X])


def test_topi_take_with_indices_held_fixed():
    X = te.placeholder((4, 5), name="X")
    I = te.placeholder((100,), name="I", dtype="int32")
    check_grad(topi.take(X, I), [X], args=[I])  # clips the flat index
    check_grad(topi.take(X, I, axis=1, mode="wrap"), [X], args=[I])


@pytest.mark.parametrize("stride, dilation", [(1, 1), (2, 1), (1, 2), (3, 2)])
def test_stride_and_dilation(stride, dilation):
    X = te.placeholder((2, 3, 7, 7), name="X")
    W = te.placeholder((2, 3, 2, 2), name="W")
    check_grad(topi.nn.conv2d_nchw(X, W, stride, 0, dilation), [X, W], data_range=(-1, 1))
