"""A hand-built ``tir.PrimFunc`` (buffers declared with ``decl_buffer``, a body from the
ir_builder) builds and runs: its buffer parameters are the argument arrays, its scalar
parameters scalar arguments, its indices checked while the kernel runs. Compared with NumPy
on both targets."""

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from lower import OutOfBoundsError
from tebound.tvm import te

TARGETS = ["llvm", "python"]


@pytest.mark.parametrize("target", TARGETS)
def test_an_in_place_update_in_a_parallel_loop_runs_on_the_callers_array(target):
    n = te.size_var("n")
    Ab = tvm.tir.decl_buffer((n,), "int64", name="A")
    ib = tvm.tir.ir_builder.create()
    A = ib.buffer_ptr(Ab)
    with ib.for_range(0, n, "i", kind="parallel") as i:
        A[i] = A[i] * 2 + 1
    mod = tvm.IRModule.from_expr(tvm.tir.PrimFunc([Ab], ib.get()).with_attr("global_symbol", "twice"))
    f = tvm.driver.build(mod, target=target)
    assert f.entry_name == "twice"
    a = np.arange(7, dtype="int64")
    f(a)
    f(a)
    np.testing.assert_array_equal(a, (np.arange(7) * 2 + 1) * 2 + 1)


@pytest.mark.parametrize("target", TARGETS)
def test_symbolic_shapes_scalars_and_calls_with_buffers(target):
    got = []
    tvm.register_func("test.prim_func_first", lambda buf, v: got.append((buf.shape, float(v))), override=True)
    m, k = te.var("m"), te.var("k", "float32")
    Xb, Yb = tvm.tir.decl_buffer((m, 3), "float32", name="X"), tvm.tir.decl_buffer((m,), "float32", name="Y")
    ib = tvm.tir.ir_builder.create()
    ib.emit(tvm.tir.call_packed("test.prim_func_first", Xb, k))
    X, Y = ib.buffer_ptr(Xb), ib.buffer_ptr(Yb)
    with ib.for_range(0, m, "i") as i:
        Y[i] = (X[i * 3] + X[i * 3 + 1] + X[i * 3 + 2]) * k
    f = tvm.build(tvm.tir.PrimFunc([Xb, Yb, k], ib.get()), target=target)
    x, y = np.arange(12, dtype="float32").reshape(4, 3), np.zeros(4, "float32")
    f(x, y, 2.0)
    np.testing.assert_array_equal(y, x.sum(axis=1) * 2)
    assert got == [((4, 3), 2.0)]
    with pytest.raises(ValueError, match="'Y' has 3 elements in dimension 0"):
        f(x, np.zeros(3, "float32"), 2.0)


@pytest.mark.parametrize("target", TARGETS)
def test_an_index_past_a_parameter_buffer_is_reported(target):
    Ab = tvm.tir.decl_buffer((5,), "float32", name="A")
    ib = tvm.tir.ir_builder.create()
    A = ib.buffer_ptr(Ab)
    with ib.for_range(0, 6, "i") as i:
        A[i] = 1.0
    f = tvm.build(tvm.tir.PrimFunc([Ab], ib.get()), target=target)
    with pytest.raises(OutOfBoundsError, match="A"):
        f(np.zeros(5, "float32"))


def test_a_module_of_hand_built_functions_builds_each_by_its_symbol():
    funcs = {}
    for name, value in (("fill_one", 1.0), ("fill_two", 2.0)):
        Ab = tvm.tir.decl_buffer((3,), "float32", name="A")
        ib = tvm.tir.ir_builder.create()
        A = ib.buffer_ptr(Ab)
        with ib.for_range(0, 3, "i") as i:
            A[i] = value
        funcs[name] = tvm.tir.PrimFunc([Ab], ib.get()).with_attr("global_symbol", name)
    m = tvm.build(tvm.IRModule(funcs), target="llvm")
    a = np.zeros(3, "float32")
    m["fill_two"](a)
    np.testing.assert_array_equal(a, [2.0] * 3)
    m["fill_one"](a)
    np.testing.assert_array_equal(a, [1.0] * 3)


@pytest.mark.parametrize("target", TARGETS)
def test_a_pointer_parameter_is_a_1d_array_of_any_length(target):
    ib = tvm.tir.ir_builder.create()
    P = ib.pointer("float32", name="P")
    with ib.for_range(0, 3, "i") as i:
        P[i] = P[i + 1] - 1.0
    f = tvm.build(tvm.tir.PrimFunc([P], ib.get()), target=target)
    p = np.arange(5, dtype="float32")
    f(p)
    np.testing.assert_array_equal(p, [0.0, 1.0, 2.0, 3.0, 4.0])
    with pytest.raises(OutOfBoundsError):
        f(np.zeros(3, "float32"))


def test_bare_handles_and_strided_parameters_are_refused_with_what_to_do():
    ib = tvm.tir.ir_builder.create()
    ib.emit(tvm.tir.call_packed("test.prim_func_first"))
    with pytest.raises(TypeError, match="bare handle, which no array binds"):
        tvm.build(tvm.tir.PrimFunc([te.var("h", "handle")], ib.get()), target="llvm")
    Sb = tvm.tir.decl_buffer((2, 2), "float32", name="S", strides=[4, 1])
    ib = tvm.tir.ir_builder.create()
    ib.buffer_ptr(Sb)[0] = 1.0
    with pytest.raises(ValueError, match="'S' has strides"):
        tvm.build(tvm.tir.PrimFunc([Sb], ib.get()), target="llvm")
