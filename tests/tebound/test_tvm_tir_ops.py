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


UNARY = [("asinh", np.arcsinh, -2, 2), ("acosh", np.arccosh, 1, 3), ("atanh", np.arctanh, -0.9, 0.9),
         ("nearbyint", np.rint, -5, 5)]
BINARY = [("atan2", np.arctan2), ("hypot", np.hypot), ("copysign", np.copysign), ("nextafter", np.nextafter)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_math_intrinsics_compute_numpys_numbers(dtype):
    rng = np.random.default_rng(3)
    n = 16
    A, B = te.placeholder((n,), dtype, name="A"), te.placeholder((n,), dtype, name="B")
    E = te.placeholder((n,), "int32", name="E")

    def unary(f):
        return lambda i: f(A[i])

    def binary(f):
        return lambda i: f(A[i], B[i])

    outs = [te.compute((n,), unary(getattr(tir, name)), name=name) for name, *_ in UNARY]
    outs += [te.compute((n,), binary(getattr(tir, name)), name=name) for name, _ in BINARY]
    outs.append(te.compute((n,), lambda i: tir.ldexp(A[i], E[i]), name="ldexp"))
    f = tvm.build(te.create_schedule([t.op for t in outs]), [A, B, E, *outs])
    b, e = rng.uniform(-1, 1, n).astype(dtype), rng.integers(-20, 20, n).astype("int32")
    for k, (name, ref, lo, hi) in enumerate(UNARY):
        a = rng.uniform(lo, hi, n).astype(dtype)
        if name == "nearbyint":
            a[:4] = [0.5, 1.5, 2.5, -2.5]  # ties go to the even neighbour
        results = [np.full(n, np.nan, dtype) for _ in outs]
        f(a, b, e, *results)
        np.testing.assert_allclose(results[k], ref(a), rtol=2e-7 if dtype == "float32" else 1e-15)
    a = rng.uniform(-1, 1, n).astype(dtype)
    results = [np.full(n, np.nan, dtype) for _ in outs]
    f(a, b, e, *results)
    for k, (_, ref) in enumerate(BINARY, start=len(UNARY)):
        np.testing.assert_allclose(results[k], ref(a, b), rtol=2e-7 if dtype == "float32" else 1e-15)
    np.testing.assert_array_equal(results[len(UNARY) + 2], np.copysign(a, b))
    np.testing.assert_array_equal(results[len(UNARY) + 3], np.nextafter(a, b))  # the dtype's next value
    np.testing.assert_array_equal(results[-1], np.ldexp(a, e))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64"])
def test_clz_counts_the_leading_zeros_in_the_operands_width(dtype):
    A = te.placeholder((6,), dtype, name="A")
    B = te.compute((6,), lambda i: tir.clz(A[i]), name="B")
    assert B.dtype == "int32"
    a = np.array([0, 1, 5, -1, 100, 64]).astype(dtype)
    b = np.full(6, -7, "int32")
    tvm.build(te.create_schedule(B.op), [A, B])(a, b)
    width = np.iinfo(dtype).bits
    np.testing.assert_array_equal(b, [width - (int(x) & ((1 << width) - 1)).bit_length() for x in a])


def test_roundings_of_an_integer_are_the_integer_and_float_only_functions_refuse_it():
    i = te.var("i")
    for f in (tir.round, tir.trunc, tir.ceil, tir.floor, tir.nearbyint):
        assert f(i) is i and f(tir.const(10, "int32")).value == 10
    for make in (lambda: tir.atan2(i, i), lambda: tir.ldexp(i, i), lambda: tir.ldexp(te.var("x", "float32"), 1.5),
                 lambda: tir.clz(te.var("x", "float32")), lambda: tir.asinh(i)):
        with pytest.raises(tvm.error.TVMError):
            make()


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16"])
def test_the_reference_evaluator_counts_bits_and_steps_floats_as_the_kernels_do(dtype):
    """``lower.reference`` (element by element from the definitions) against a built kernel."""
    from lower import reference

    A, F = te.placeholder((6,), dtype, name="A"), te.placeholder((6,), "float32", name="F")
    B = te.compute((6,), lambda i: tir.popcount(A[i]).astype("int32") * 100 + tir.clz(A[i]), name="B")
    G = te.compute((6,), lambda i: tir.nextafter(F[i], tir.const(2.0, "float32")), name="G")
    a = np.array([-1, -128, 0, 5, 127, 77]).astype(dtype)
    x = np.array([0.5, 1.0, -3.0, 1e-3, 7.25, 1.9999999], "float32")
    want = reference([B, G], {A: a, F: x})
    b, g = np.full(6, -1, "int32"), np.full(6, np.nan, "float32")
    tvm.build(te.create_schedule([B.op, G.op]), [A, F, B, G])(a, x, b, g)
    np.testing.assert_array_equal(want[B].astype("int32"), b)
    np.testing.assert_array_equal(want[G].astype("float32"), g)
    np.testing.assert_array_equal(g, np.nextafter(x, np.float32(2.0)))
