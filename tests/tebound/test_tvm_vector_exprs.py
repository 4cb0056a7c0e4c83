"""TVM's vector expressions (``Ramp``, ``Broadcast``, ``int32x4`` types), ``Let``, ``Any`` and
``BufferLoad(buffer, [indices])``: built and typed as in TVM; a compute refuses a vector body
and inlines a let (checked against NumPy)."""

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from schedule.ir.dtype import check_dtype, element, lanes
from schedule.ir.evaluate import evaluate
from schedule.ir.functor import structural_equal
from tebound.tvm import te, tir

from ..safety.isolated import TARGETS


def test_vector_types_parse_and_uint1_is_bool():
    assert check_dtype("int32x4") == "int32x4" and lanes("int32x4") == 4 and element("float16x8") == "float16"
    assert check_dtype("uint1") == "bool" and check_dtype("uint1x2") == "boolx2"
    with pytest.raises(ValueError, match="lanes"):
        check_dtype("handlex2")


def test_ramp_broadcast_and_scalar_operands_meet_as_in_tvm():
    x, y = te.var("x"), te.var("y")
    r = tir.Ramp(x, 1, 4)
    assert r.dtype == "int32x4" and str(r) == "ramp(x, 1, 4)"
    s = r + y                                # the scalar is broadcast
    assert isinstance(s.b, tir.Broadcast) and s.b.value is y and s.dtype == "int32x4"
    assert y.astype("int32x2").dtype == "int32x2" and isinstance(y.astype("int32x2"), tir.Broadcast)
    assert (r < tir.Broadcast(y, 4)).dtype == "boolx4"
    f = r.astype("float32x4")
    assert isinstance(f, tir.Cast) and f.dtype == "float32x4"
    assert tir.Broadcast(y, 4).astype("float32x4").value.dtype == "float32"  # cast inside the broadcast


@pytest.mark.parametrize("build, message", [
    (lambda: tir.Ramp(te.var("x"), 1, 1), "lanes"),
    (lambda: tir.Broadcast(tir.Ramp(0, 1, 2), 2), "scalar"),
    (lambda: tir.Ramp(te.var("x"), te.var("s", "int64"), 4), "dtypes differ"),
    (lambda: tir.Ramp(0, 1, 4) + tir.Ramp(0, 1, 2), "lanes differ"),
    (lambda: tir.Select(tir.Ramp(0, 1, 2) < 1, 1, 2), "lanes"),
])
def test_malformed_vectors_are_refused(build, message):
    with pytest.raises((TypeError, ValueError), match=message):
        build()


def test_let_any_and_buffer_load_with_indices():
    x = te.var("x")
    let = tir.Let(x, 4, x * x + 1)
    assert let.dtype == "int32" and evaluate(let.body, {x: 4}) == 17
    with pytest.raises(TypeError, match="Let"):
        tir.Let(x, tir.const(1.5, "float32"), x)
    a, b = tir.Any(), tir.Any()
    assert structural_equal(a - a, a - a) and not structural_equal(a - b, b - a)
    i, j = te.var("i"), te.var("j")
    buf = tir.decl_buffer((3, 4), "float32", name="B")
    assert structural_equal(tir.BufferLoad(buf, [i, j]).index, i * 4 + j)
    with pytest.raises(ValueError, match="2-dimensional"):
        tir.BufferLoad(buf, [i])


@pytest.mark.parametrize("target", TARGETS)
def test_a_compute_inlines_lets_and_refuses_vectors(target):
    n = 6
    A = te.placeholder((n,), name="A")
    v = te.var("v")
    B = te.compute((n,), lambda i: tir.Let(v, i * 3, A[i] * v.astype("float32") + 1.0), name="B")
    s = te.create_schedule(B.op)
    f = tvm.build(s, [A, B], target)
    a = tvm.nd.array(np.arange(n, dtype="float32"))
    b = tvm.nd.array(np.zeros(n, dtype="float32"))
    f(a, b)
    np.testing.assert_allclose(b.numpy(), np.arange(n) * np.arange(n) * 3 + 1.0)
    with pytest.raises(tvm.error.TVMError, match="vector type int32x4"):
        te.compute((n,), lambda i: tir.Ramp(i, 1, 4), name="C")


def test_tir_log_of_an_integer_is_built_for_analysis_and_refused_by_a_compute():
    a = te.var("a")
    e = tir.log(a)
    assert e.dtype == "int32" and e.name == "log"
    assert tvm.arith.deduce_bound(a, e < 10, {}, {}).is_nothing()
    assert tir.log(a.astype("float32")).dtype == "float32"
    with pytest.raises(TypeError, match="cast it to a float type first"):
        te.compute((4,), lambda i: tir.log(i), name="L")
