"""One semantics per operation on both targets, with the inputs that once split them: NaN in
max/min, float to int casts out of range, bools with any byte, unsigned wraparound, float16
scalars, casts that round once, and the sign of a zero (see the Safety guide, docs/guide/safety.md)."""

from __future__ import annotations

import numpy as np
import pytest

import lower
import schedule as te

from .isolated import TARGETS


def _run(target, out_dtype, body, inputs, scalars=(), scalar_vars=()):
    n = len(inputs[0])
    ph = [te.placeholder((n,), name=f"A{k}", dtype=str(a.dtype)) for k, a in enumerate(inputs)]
    C = te.compute((n,), lambda i: body(*(p[i] for p in ph), *scalar_vars), name="C")
    s = te.create_schedule(C.op)
    f = lower.build(s, [*ph, C, *scalar_vars], target)  # each test names its target
    out = np.zeros(n, out_dtype)
    f(*[a.copy() for a in inputs], out, *scalars)
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_nan_propagates_through_max_and_min(target):
    a = np.array([np.nan, 1.0, np.nan, 2.0], "float32")
    b = np.array([1.0, np.nan, np.nan, 3.0], "float32")
    got = _run(target, "float32", lambda x, y: te.max(x, y), [a, b])
    np.testing.assert_array_equal(got, np.maximum(a, b))
    got = _run(target, "float32", lambda x, y: te.min(x, y), [a, b])
    np.testing.assert_array_equal(got, np.minimum(a, b))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype, expected", [
    ("int32", [-2**31, -2**31, -2**31, -2**31, 7]),
    ("int8", [0, 0, 0, 0, 7]),
    ("int64", [3000000000, -2**63, -2**63, -2**63, 7]),
    ("uint64", [3000000000, 0, 0, 0, 7]),
])
def test_a_float_out_of_range_casts_as_numpy_on_x86(target, dtype, expected):
    a = np.array([3e9, np.nan, np.inf, 1e20, 7.9], "float64")
    assert _run(target, dtype, lambda x: x.astype(dtype), [a]).tolist() == expected


@pytest.mark.parametrize("target", TARGETS)
def test_any_nonzero_byte_of_a_bool_is_true(target):
    a = np.frombuffer(bytes([0, 1, 2, 255]), "uint8").view(bool).copy()
    got = _run(target, "int32", lambda x: x.astype("int32") + te.if_then_else(x, 10, 20), [a])
    assert got.tolist() == [20, 11, 11, 11]


@pytest.mark.parametrize("target", TARGETS)
def test_unsigned_arithmetic_wraps_before_a_division(target):
    a, b = np.array([1, 5], "uint32"), np.array([3, 1], "uint32")
    got = _run(target, "uint32", lambda x, y: te.floordiv(x - y, te.const(2, "uint32")), [a, b])
    assert got.tolist() == ((a - b) // 2).tolist() == [2147483647, 2]


@pytest.mark.parametrize("target", TARGETS)
def test_a_float16_scalar_arrives(target):
    k = te.var("k", "float16")
    a = np.arange(4).astype("float16")
    got = _run(target, "float16", lambda x, kk: x + kk, [a], scalars=(1.5,), scalar_vars=(k,))
    assert got.tolist() == [1.5, 2.5, 3.5, 4.5]


@pytest.mark.parametrize("target", TARGETS)
def test_an_int64_rounds_to_float32_once(target):
    a = np.array([2**60 + 2**36 + 1, -(2**55) - 3, 123], "int64")
    got = _run(target, "float32", lambda x: x.astype("float32"), [a])
    np.testing.assert_array_equal(got, a.astype("float32"))


@pytest.mark.parametrize("target", TARGETS)
def test_a_zero_keeps_its_sign(target):
    a = np.array([-0.5, -0.0, 0.25], "float32")
    got = _run(target, "float32", lambda x: te.round(x), [a])
    assert [np.signbit(v) for v in got] == [True, True, False]
    got = _run(target, "float32", lambda x: te.floordiv(x, te.const(1.0, "float32")), [a])
    assert got.tolist() == [-1.0, 0.0, 0.0] and [np.signbit(v) for v in got] == [True, True, False]


@pytest.mark.parametrize("target", TARGETS)
def test_a_shift_by_any_count_is_numpys(target):
    a = np.array([1, -8, 3, 1, -5, 7], "int32")
    b = np.array([-1, 2, 31, 32, 40, 0], "int32")
    assert _run(target, "int32", lambda x, y: x << y, [a, b]).tolist() == np.left_shift(a, b).tolist()
    assert _run(target, "int32", lambda x, y: x >> y, [a, b]).tolist() == np.right_shift(a, b).tolist()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype, value", [
    ("int8", -100), ("int16", -30000), ("int32", -2**31), ("int64", -2**62 - 3), ("uint8", 250), ("uint16", 65000),
    ("uint32", 2**32 - 5), ("uint64", 2**63 + 7), ("float16", -3.5), ("float32", 1.25e-3), ("float64", 1e300),
    ("bool", True),
])
def test_a_scalar_argument_of_every_dtype_arrives_whole(target, dtype, value):
    k = te.var("k", dtype)
    a = np.zeros(2, dtype)
    got = _run(target, dtype, lambda x, kk: te.if_then_else(x == x, kk, x), [a], scalars=(value,), scalar_vars=(k,))
    assert got.tolist() == np.array([value, value], dtype).tolist()
