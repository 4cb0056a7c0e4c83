"""TVM's extern tutorial and extern unit tests, written anew: calls to functions registered by
name (NumPy in place of cblas), declared buffers, scalar arguments; both modes, equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from lower.backend.python.runtime import OutOfBoundsError
from schedule.ir.evaluate import evaluate

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


@BOTH
def test_vload_and_vstore_of_declared_buffers_build_an_extern_body(exact):
    """``buf.vstore(i, buf.vload(i) ...)`` in an ir_builder body: the element at a multi-index,
    and, with a constant element offset, that many elements further on."""
    A = te.placeholder((4, 6), name="A")
    shifted = te.decl_buffer((4, 5), "float32", name="shifted", strides=[6, 1], elem_offset=1)

    def body(ins, outs):
        ib = te.ir_builder.create()
        with ib.for_range(0, 4, name="i") as i:
            with ib.for_range(0, 5, name="j") as j:
                ib.emit(outs[0].vstore((i, j), ins[0].vload((i, j)) * 2 + ins[0].vload([i, j], "float32")))
        return ib.get()

    C = te.extern((4, 5), [A], body, in_buffers=[shifted], name="C")
    s = te.create_schedule(C.op)
    a = random((4, 6))
    (c,) = run(s, [A, C], [a], exact)
    np.testing.assert_array_equal(c, a[:, 1:] * 3)


def test_offset_of_access_ptr_and_vload_refusals():
    m, n = te.size_var("m"), te.size_var("n")
    buf = te.decl_buffer((m, n), "float32", name="Ab", elem_offset=100)
    (flat,) = buf.offset_of([2, 3])
    assert evaluate(flat, {n: 7}) == 100 + 2 * 7 + 3
    strided = te.decl_buffer((m, n), "float32", name="Sb", strides=[n + 1, 1])
    assert evaluate(strided.offset_of((2, 3))[0], {n: 7}) == 2 * 8 + 3
    # TVM's call: tvm_access_ptr(type_annotation(dtype), data, offset, extent, mask).
    ptr = strided.access_ptr("rw", offset=5)
    assert ptr.args[0].dtype == "float32" and ptr.args[2].value == 5
    assert evaluate(ptr.args[3], {m: 3, n: 7}) == 8 * 3 - 5
    assert ptr.args[4].value == (te.DeclBuffer.READ | te.DeclBuffer.WRITE) == 3
    assert buf.access_ptr("w").args[4].value == te.DeclBuffer.WRITE
    with pytest.raises(te.ScheduleTypeError, match="1 indices for 2 dimensions"):
        buf.offset_of([1])
    with pytest.raises(te.ScheduleTypeError, match="holds float32, not int32"):
        buf.vload([0, 0], "int32x4")
    with pytest.raises(te.ScheduleTypeError, match="vstore of buffer 'Ab'"):
        buf.vstore([0, 0], "text")


@BOTH
def test_vector_vload_and_vstore_compute_their_lanes(exact):
    """``vstore(i * 2, vload(i * 2, "float32x2") + const(1, "float32x2"))``, TVM's extern add
    pipeline: each store's lanes one after the other, on both targets."""
    n = 64
    A = te.placeholder((n,), name="A")

    def body(ins, outs):
        ib = te.ir_builder.create()
        with ib.for_range(0, n // 2, name="i") as i:
            ib.emit(outs[0].vstore(i * 2, ins[0].vload(i * 2, "float32x2") + te.const(1, "float32x2")))
        return ib.get()

    C = te.extern((n,), [A], body, name="C")
    a = random((n,))
    (c,) = run(te.create_schedule(C.op), [A, C], [a], exact)
    np.testing.assert_array_equal(c, a + 1)


def test_a_vector_store_past_its_buffer_is_an_error_on_its_last_lane():
    A = te.placeholder((8,), name="A")

    def body(ins, outs):
        ib = te.ir_builder.create()
        with ib.for_range(0, 2, name="i") as i:
            ib.emit(outs[0].vstore(i * 4 + 2, ins[0].vload(i * 4, "float32x4")))
        return ib.get()

    C = te.extern((8,), [A], body, name="C")
    with pytest.raises(OutOfBoundsError, match="C"):
        run(te.create_schedule(C.op), [A, C], [random((8,))], True)
