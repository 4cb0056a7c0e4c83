"""TVM's rules for building expressions: constants fold (roundings and casts included), and a
refused operand raises an error that is both ``TypeError`` and ``tvm.error.TVMError``."""

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from tebound.tvm import te, tir


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "round"])
@pytest.mark.parametrize("value", [2.5, -3.5, 1.25, -0.75, 7.0])
def test_roundings_of_constants_fold_as_the_targets_compute_them(name, value):
    folded = getattr(te, name)(tir.const(value, "float64"))
    assert isinstance(folded, tir.FloatImm) and folded.dtype == "float64"
    numpy_name = {"round": "rint"}.get(name, name)
    assert folded.value == getattr(np, numpy_name)(value)
    # A built kernel rounds the same way where the value is not a constant.
    A = te.placeholder((1,), "float64", name="A")
    B = te.compute((1,), lambda i: getattr(te, name)(A[i]), name="B")
    out = np.zeros(1)
    tvm.build(te.create_schedule(B.op), [A, B])(np.array([value]), out)
    assert out[0] == folded.value


def test_a_chain_of_constants_folds_to_a_constant():
    x = (te.ceil(tir.truncdiv(tir.const(4, "int32") + 5, 3) + 0.55)).astype("int32")
    assert isinstance(x, tir.IntImm) and x.value == 4
    y = (te.round((tir.const(6.5, "float32") - 1) / 1.5) + 2).astype("int32")
    assert isinstance(y, tir.IntImm) and y.value == 6
    n = te.var("n", "float32")
    assert isinstance(te.floor(n), tir.Call)  # a variable stays a call


def test_refused_operands_raise_tvm_error_and_type_error():
    x = te.var("x")
    cases = [
        lambda: tir.all(tir.const(1, "bool"), x),   # an int32 in a logical operation
        lambda: tir.any(x, tir.const(0, "bool")),
        lambda: te.power(x, x),                      # power of integers
        lambda: tir.if_then_else(x, x, x),           # an int32 condition
        lambda: te.exp(x),
    ]
    for make in cases:
        with pytest.raises(tvm.error.TVMError) as caught:
            make()
        assert isinstance(caught.value, TypeError)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"])
def test_popcount_and_the_bit_functions_count_in_the_operands_own_width(dtype):
    A = te.placeholder((6,), dtype, name="A")
    one = tir.const(1, dtype)
    B = te.compute((6,), lambda i: tir.popcount(A[i]), name="B")
    C = te.compute((6,), lambda i: tir.bitwise_xor(tir.bitwise_and(A[i], tir.shift_left(one, one + one)),
                                                   tir.bitwise_or(tir.shift_right(A[i], one), one)), name="C")
    D = te.compute((6,), lambda i: tir.bitwise_not(A[i]), name="D")
    s = te.create_schedule([B.op, C.op, D.op])
    a = np.array([-1, -128, 0, 5, 127, 77]).astype(dtype)
    b, c, d = (np.zeros(6, dtype) for _ in range(3))
    tvm.build(s, [A, B, C, D])(a, b, c, d)
    width = np.iinfo(dtype).bits
    np.testing.assert_array_equal(b, [bin(int(x) & ((1 << width) - 1)).count("1") for x in a])
    np.testing.assert_array_equal(c, (a & (1 << 2)) ^ ((a >> 1) | 1))
    np.testing.assert_array_equal(d, ~a)


def test_bit_functions_refuse_floats():
    x = te.var("x", "float32")
    for make in (lambda: tir.popcount(x), lambda: tir.bitwise_and(x, x), lambda: tir.shift_left(x, 1)):
        with pytest.raises(tvm.error.TVMError, match="float32"):
            make()
