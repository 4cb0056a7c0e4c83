"""TVM's test_te_tensor_overload, written anew: arithmetic on whole tensors builds element-wise
and broadcast computes (TOPI's tags and names) that run equal to NumPy, with TVM's default CPU
schedule and with an injective CUDA-style schedule (blocks and threads)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import schedule as te
import topi
from lower import build

from .run import random

BOTH = pytest.mark.parametrize("exact", [False, True])
SCHEDULES = pytest.mark.parametrize("style", ["cpu", "cuda"])


def _schedule(T: te.Tensor, style: str) -> te.Schedule:
    """TVM's default schedule, or TOPI's CUDA injective one: all axes fused, split over threads."""
    s = te.create_schedule(T.op)
    if style == "cuda":
        fused = s[T].fuse(*T.op.axis) if T.op.axis else None
        if fused is not None:
            bx, tx = s[T].split(fused, factor=64)
            s[T].bind(bx, te.thread_axis("blockIdx.x"))
            s[T].bind(tx, te.thread_axis("threadIdx.x"))
    return s


def test_operator_type_and_tags():
    k, n = 1, te.var("n")
    A = te.placeholder((), name="A")
    B = te.placeholder((10, 5), name="B")
    B2 = B[0, 0]
    assert isinstance(k + n, te.Expr) and isinstance(n + n, te.Expr)
    for t in [k + A, A + k, n + A, A + n, A + A, k + B, B + k, n + B, B + n, A + B, B + A, B + B,
              B2 + A, A + B2, B2 + B, B + B2]:
        assert isinstance(t, te.Tensor)
    assert all(t.op.tag == "elemwise" for t in [k + B, B + k, n + B, B + n])
    assert all(t.op.tag == "broadcast" for t in [A + B, B + A, B + B])
    assert all(isinstance(e, te.Expr) for e in [k + B2, B2 + k, n + B2, B2 + n, B2 + B2])
    assert (B + B).op.name == "T_add" and (B * 2).op.name == "T_multiply" and (2 - B).op.name == "T_subtract"
    assert (B + k).shape == B.shape and (A + B).shape == B.shape


@BOTH
@SCHEDULES
def test_combination(exact, style):
    k, n, m = 3, 5, 10
    x = te.var("x")
    A, B, C = (te.placeholder((n, m), name=name) for name in "ABC")
    D = k + A - B * C + x
    s = _schedule(D, style)
    a, b, c = (random((n, m), seed=s_) for s_ in range(3))
    d = np.full((n, m), np.nan, "float32")
    build(s, [x, A, B, C, D], exact=exact)(2, a, b, c, d)
    np.testing.assert_array_equal(d, k + a - b * c + 2)


@BOTH
@SCHEDULES
@pytest.mark.parametrize(("shape", "kind"), [((1,), "add"), ((3, 5), "sub"), ((1, 3, 5), "mul"),
                                             ((2, 3, 1, 32), "div")])
def test_tensor_scalar_bop(exact, style, shape, kind):
    sh = [te.size_var(f"n{i}") for i in range(len(shape))]
    k = te.var("k")
    A = te.placeholder(sh, name="A")
    B = {"add": lambda: A + k, "sub": lambda: A - k, "mul": lambda: A * k, "div": lambda: A / k}[kind]()
    s = _schedule(B, style)
    f = build(s, [A, B, k, *sh], exact=exact)
    a = np.random.default_rng(1).uniform(size=shape).astype("float32")
    b = np.full(shape, np.nan, "float32")
    f(a, b, 2, *shape)
    expected = {"add": a + 2, "sub": a - 2, "mul": a * 2, "div": a / np.float32(2)}[kind]
    np.testing.assert_allclose(b, expected, rtol=1e-6)


@BOTH
@SCHEDULES
@pytest.mark.parametrize(("lhs", "rhs", "kind"), [((2, 3), (), "add"), ((5, 2, 3), (1,), "add"),
                                                  ((1, 32), (64, 32), "sub"), ((5, 64, 128), (2, 5, 64, 1), "mul"),
                                                  ((2, 3, 1, 32), (64, 32), "div")])
def test_broadcast_bop(exact, style, lhs, rhs, kind):
    A = te.placeholder(lhs, name="A")
    B = te.placeholder(rhs, name="B")
    op = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}[kind]
    C = op(A, B)
    assert C.op.tag == "broadcast"
    s = _schedule(C, style)
    rng = np.random.default_rng(2)
    a, b = rng.uniform(size=lhs).astype("float32"), rng.uniform(size=rhs).astype("float32")
    if kind == "div":
        b = np.abs(b) + np.float32(0.001)
    expected = op(a, b)
    c = np.full(expected.shape, np.nan, "float32")
    build(s, [A, B, C], exact=exact)(a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-6)


def test_shapes_that_do_not_broadcast_are_refused():
    A, B = te.placeholder((3, 4), name="A"), te.placeholder((2, 4), name="B")
    with pytest.raises(te.ScheduleError, match=r"T_add: shapes \(3, 4\) and \(2, 4\) do not broadcast: dimension 3 "
                                               r"against 2"):
        A + B
    with pytest.raises(TypeError):
        A + "x"
    assert isinstance(np.float32(2) * A, te.Tensor)  # NumPy's scalars give way to the tensor


@BOTH
@pytest.mark.parametrize(("size", "channels", "filters", "kind"), [(8, 2, 2, "add"), (6, 1, 1, "sub"),
                                                                   (6, 1, 1, "mul"), (8, 2, 1, "div")])
def test_conv2d_scalar_bop(exact, size, channels, filters, kind):
    """A scalar operator on a conv2d's output, both outputs built (TVM's conv2d_scalar_bop)."""
    A = te.placeholder((1, channels, size, size), name="A")
    W = te.placeholder((filters, channels, 3, 3), name="W")
    B = topi.nn.conv2d_nchw(A, W, 1, 1, 1)
    k = 10.0
    C = {"add": lambda: B + k, "sub": lambda: B - k, "mul": lambda: B * k, "div": lambda: B / k}[kind]()
    s = te.create_schedule(C.op)
    a, w = random((1, channels, size, size), seed=1), random((filters, channels, 3, 3), seed=2)
    b = np.full((1, filters, size, size), np.nan, "float32")
    c = np.full((1, filters, size, size), np.nan, "float32")
    build(s, [A, W, B, C], exact=exact)(a, w, b, c)
    padded = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))
    expected = np.einsum("nchwij,fcij->nfhw", windows, w)
    np.testing.assert_array_equal(b, expected)
    op = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[kind]
    np.testing.assert_allclose(c, op(expected, np.float32(k)), rtol=1e-6)


@pytest.mark.parametrize("exact", [False, True])
def test_astype_of_a_whole_tensor(exact):
    """``tensor.astype(dtype)``: a compute converting each element (TVM's Tensor.astype)."""
    A = te.placeholder((2, 3), name="A")
    B = te.placeholder((2, 3), name="B")
    flags = topi.greater(A, B).astype("int8")
    whole = A.astype("int32")
    a = np.array([[1.5, -2.7, 3.0], [4.2, 0.0, -1.0]], "float32")
    b = np.array([[0.0, 5.0, 3.0], [1.0, -1.0, -2.0]], "float32")
    out_flags, out_whole = np.full((2, 3), -1, "int8"), np.full((2, 3), -1, "int32")
    build(te.create_schedule([flags.op, whole.op]), [A, B, flags, whole], exact=exact)(a, b, out_flags, out_whole)
    np.testing.assert_array_equal(out_flags, (a > b).astype("int8"))
    np.testing.assert_array_equal(out_whole, a.astype("int32"))
    assert whole.op.name == "T_cast" and whole.dtype == "int32"
    with pytest.raises(ValueError, match="unknown dtype"):
        A.astype("int33")
