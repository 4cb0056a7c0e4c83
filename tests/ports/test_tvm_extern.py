"""TVM's extern tutorial and extern unit tests, written anew: calls to functions registered by
name (NumPy in place of cblas), declared buffers, scalar arguments; both modes, equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from lower.backend.python.runtime import OutOfBoundsError

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])


@te.register_func("test.numpy.matmul", override=True)
def _matmul(a, b, c, trans_a, trans_b):
    c[...] = (a.T if trans_a else a) @ (b.T if trans_b else b)


@te.register_func("test.addone", override=True)
def _addone(x, y):
    y[...] = x + 1


@BOTH
def test_tutorial_matmul_with_a_bias_argument(exact):
    n, l, m = 16, 8, 12
    bias = te.var("bias", dtype="float32")
    A = te.placeholder((n, l), name="A")
    B = te.placeholder((l, m), name="B")
    C = te.extern((n, m), [A, B],
                  lambda ins, outs: te.call_packed("test.numpy.matmul", ins[0], ins[1], outs[0], False, False),
                  name="C")
    D = te.compute(C.shape, lambda i, j: C[i, j] + bias, name="D")
    s = te.create_schedule(D.op)
    text = str(lower(s, [A, B, D, bias], exact=exact))
    assert 'tvm_call_packed("test.numpy.matmul", A_buf, B_buf, C, (bool)0, (bool)0)' in text
    assert "// attr [0] extern_scope = 0" in text and "allocate C[float32 * 192]" in text
    a, b = random((n, l), seed=1), random((l, m), seed=2)
    d = np.full((n, m), np.nan, "float32")
    build(s, [A, B, D, bias], exact=exact)(a, b, d, 1.5)
    np.testing.assert_allclose(d, a @ b + 1.5, rtol=1e-6)


@BOTH
def test_tutorial_hook_a_python_function(exact):
    A = te.placeholder((10,), name="A")
    B = te.extern(A.shape, [A], lambda ins, outs: te.call_packed("test.addone", ins[0], outs[0]), name="C")
    s = te.create_schedule(B.op)
    a = random((10,))
    (b,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(b, a + 1)


@BOTH
def test_extern_multi_out_with_data_and_a_shape_argument(exact):
    """TVM's test_extern_multi_out: two outputs, the buffers' ``.data`` and a symbolic length."""
    m = te.var("m")
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i] * 10, name="B")
    seen = []

    def myadd(a, b, out0, out1, length):
        seen.append(length)
        out0[...], out1[...] = a + b, a - b
    te.register_func("test.myadd", myadd, override=True)
    res = te.extern([A.shape, A.shape], [A, B],
                    lambda ins, outs: te.call_packed("test.myadd", ins[0].data, ins[1].data, outs[0].data,
                                                     outs[1].data, m))
    s = te.create_schedule(res[0].op)
    a = random((7,))
    out0, out1 = run(s, [A, *res], [a], exact)
    np.testing.assert_array_equal(out0, a + a * 10)
    np.testing.assert_array_equal(out1, a - a * 10)
    assert seen == [7]


@BOTH
def test_declared_strides_and_offset_select_a_view(exact):
    """An input buffer declared with strides and an element offset sees every other column."""
    A = te.placeholder((4, 6), name="A")
    view = te.decl_buffer((4, 3), "float32", name="odd_columns", strides=[6, 2], elem_offset=1)
    C = te.extern((4, 3), [A], lambda ins, outs: te.call_packed("test.addone", ins[0], outs[0]),
                  in_buffers=[view], name="C")
    s = te.create_schedule(C.op)
    a = random((4, 6))
    (c,) = run(s, [A, C], [a], exact)
    np.testing.assert_array_equal(c, a[:, 1::2] + 1)


@BOTH
def test_symbolic_strides_and_offset_factor_bind_to_the_compact_storage(exact):
    n = te.var("n")
    A = te.placeholder((n, 3), name="A")
    sa, sb = te.var("sa"), te.var("sb")
    buf = te.decl_buffer((n, 3), "float32", name="Ab", strides=[sa, sb], offset_factor=4)
    assert buf.elem_offset.name == "Ab_elem_offset"
    C = te.extern((n, 3), [A], lambda ins, outs: te.call_packed("test.addone", ins[0], outs[0]),
                  in_buffers=[buf], name="C")
    s = te.create_schedule(C.op)
    a = random((5, 3))
    (c,) = run(s, [A, C], [a], exact)
    np.testing.assert_array_equal(c, a + 1)


def test_a_view_outside_its_storage_is_an_error():
    A = te.placeholder((4,), name="A")
    view = te.decl_buffer((4,), "float32", name="wide", strides=[2])
    C = te.extern((4,), [A], lambda ins, outs: te.call_packed("test.addone", ins[0], outs[0]),
                  in_buffers=[view], name="C")
    s = te.create_schedule(C.op)
    with pytest.raises(OutOfBoundsError, match="does not fit its storage"):
        run(s, [A, C], [random((4,))], True)


def test_extern_errors_name_what_is_wrong():
    A = te.placeholder((4,), name="A")
    with pytest.raises(te.ScheduleError, match="2 in_buffers for 1 tensors"):
        te.extern((4,), [A], lambda ins, outs: te.call_packed("f", ins[0], outs[0]),
                  in_buffers=[te.decl_buffer((4,)), te.decl_buffer((4,))])
    with pytest.raises(te.ScheduleError, match="does not match its tensor"):
        te.extern((4,), [A], lambda ins, outs: te.call_packed("f", ins[0], outs[0]),
                  in_buffers=[te.decl_buffer((4,), "int32")])
    with pytest.raises(te.ScheduleError, match="already registered"):
        te.register_func("test.addone", _addone)
    C = te.extern((4,), [A], lambda ins, outs: te.call_packed("test.nowhere", ins[0], outs[0]), name="C")
    with pytest.raises(ValueError, match="no function is registered as 'test.nowhere'"):
        run(te.create_schedule(C.op), [A, C], [random((4,))], True)
