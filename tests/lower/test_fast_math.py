"""te.fast_exp, fast_log, fast_tanh, fast_sigmoid and fast_erf in the C target: within their
documented ulps (one more allowed, for compilers that fuse differently) of the correctly rounded
result over every sign and exponent and on dense grids where the method changes, with C's inf,
nan, signed zeros and subnormals; vectorized in vector loops; exact functions elsewhere. Every test names its target (the module
runs once, not once per default target)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import lower
import schedule as te
from lower.backend.c.compile import find_compiler, native_vector_bytes
from lower.backend.c.fast_math import FAST_FUNCTIONS, MAX_ULPS

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


VECTOR = {"vector": True, "scalar": False}
#: Lanes of a vector loop of 16 floats on this machine.
LANES = min(16, native_vector_bytes() // 4)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.frompyfunc(math.erf, 1, 1)(x).astype(np.float64)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x < 0, e, 1.0) / (1.0 + e)


#: Each function in float64 (NumPy, or math.erf): the reference, rounded to float32.
REFERENCE = {"exp": np.exp, "log": np.log, "tanh": np.tanh, "sigmoid": _sigmoid, "erf": _erf}


def _kernel(func: str, n: int, vector: bool = True):
    """fast_<func> over n floats (n a multiple of 16): in a vector loop (the vector function) or
    a serial one (the scalar function); the source is checked to call the one meant."""
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: getattr(te, f"fast_{func}")(A[i]), name="B")
    s = te.create_schedule(B.op)
    outer, inner = s[B].split(B.op.axis[0], factor=16)
    if vector:
        s[B].vectorize(inner)
    s[B].parallel(outer)
    f = lower.build(s, [A, B], target="c")
    source = f.get_source()
    assert (f"tb_fast_{func}f_x{LANES}(" in source) == vector
    assert f"tb_fast_{func}f(" in source or vector
    return f


def _ordered(x: np.ndarray) -> np.ndarray:
    """float32 bit patterns as integers in the order of the values (-0 and 0 equal)."""
    i = x.view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


def _max_ulps(func: str, x: np.ndarray, vector: bool) -> int:
    """The largest distance in ulps of fast_<func> from the rounded reference on x; nan exactly
    where the reference is nan."""
    x = np.resize(x, -(-x.size // 16) * 16)
    got = np.full_like(x, 7.0)
    _kernel(func, x.size, vector)(x, got)
    with np.errstate(all="ignore"):
        want = REFERENCE[func](x.astype(np.float64)).astype(np.float32)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    return int(np.abs(_ordered(got[~nan]) - _ordered(want[~nan])).max())


def _every_exponent(step: int) -> np.ndarray:
    """Bit patterns *step* apart over all 2^32: every sign and exponent, inf and nan included."""
    return (np.arange(2**32 // step, dtype=np.uint64) * step + step // 2 - 1).astype(np.uint32).view(np.float32)


def _dense(lo: float, hi: float, step: int = 3) -> np.ndarray:
    """Every *step*-th float between two positive floats."""
    a, b = np.float32(lo).view(np.int32), np.float32(hi).view(np.int32)
    return np.arange(a, b, step, dtype=np.int32).view(np.float32)


#: Where each method changes or loses digits: both signs of each interval.
GRIDS = {
    "exp": [(np.arange(-104 * 1024, 89 * 1024) / 1024).astype(np.float32)],
    "log": [_dense(0.5, 2.0, 7), _dense(1e-45, 2e-38, 4099)],
    "tanh": [_dense(0.55, 0.7), _dense(1e-6, 1e-2, 61), _dense(8.0, 10.0, 31)],
    "sigmoid": [_dense(1e-3, 100.0, 257), _dense(80, 110, 7)],
    "erf": [_dense(0.95, 1.05), _dense(3.5, 4.5, 11), _dense(1e-6, 0.5, 257)],
}


@pytest.mark.parametrize("vector", VECTOR.values(), ids=VECTOR.keys())
@pytest.mark.parametrize("func", FAST_FUNCTIONS)
def test_within_the_documented_ulps_over_every_sign_and_exponent(func, vector):
    step = 4096 if func == "erf" else 1024  # math.erf runs in Python: fewer points
    assert _max_ulps(func, _every_exponent(step), vector) <= MAX_ULPS[func] + 1


@pytest.mark.parametrize("vector", VECTOR.values(), ids=VECTOR.keys())
@pytest.mark.parametrize("func", FAST_FUNCTIONS)
def test_within_the_documented_ulps_on_dense_grids(func, vector):
    for grid in GRIDS[func]:
        assert _max_ulps(func, np.concatenate([grid, -grid]), vector) <= MAX_ULPS[func] + 1


SPECIAL = np.array([0.0, -0.0, 1.4e-45, -1.4e-45, np.inf, -np.inf, np.nan, 88.72283, 88.72284, -103.97, -104.0,
                    -87.33655, -87.4, 1e-30, -1e-30, 3.4e38, -3.4e38, 1.0, 1.17549435e-38, 1.1754942e-38, -1.0,
                    0.625, -0.625, 4.0, -4.0, 0.5], np.float32)


@pytest.mark.parametrize("vector", VECTOR.values(), ids=VECTOR.keys())
@pytest.mark.parametrize("func", FAST_FUNCTIONS)
def test_special_values(func, vector):
    x = np.resize(SPECIAL, 32)
    got = np.zeros(32, np.float32)
    _kernel(func, 32, vector)(x, got)
    with np.errstate(all="ignore"):
        want = REFERENCE[func](x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert (np.abs(_ordered(got[ok]) - _ordered(want[ok])) <= MAX_ULPS[func] + 1).all()
    # infinities and zeros exactly, with their signs
    exact = ok & (np.isinf(want) | (want == 0))
    np.testing.assert_array_equal(got[exact], want[exact])
    np.testing.assert_array_equal(np.signbit(got[exact]), np.signbit(want[exact]))


@pytest.mark.parametrize("func", FAST_FUNCTIONS)
def test_the_loop_is_vectorized_and_the_python_target_computes_the_exact_function(func):
    n = 64
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: getattr(te, f"fast_{func}")(A[i] * 2), name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(s[B].split(B.op.axis[0], factor=16)[1])
    source = lower.build(s, [A, B], target="c").get_source()
    assert f"tb_fast_{func}f_x{LANES}(" in source and f" {func}f(" not in source
    a = np.linspace(0.1 if func == "log" else -5, 5, n).astype("float32")
    b = np.full(n, np.nan, "float32")
    lower.build(s, [A, B], target="python")(a, b)
    np.testing.assert_allclose(b, REFERENCE[func](2 * a.astype(np.float64)), rtol=1e-6)


def test_fast_math_of_another_dtype_is_the_exact_function():
    x = te.var("x", dtype="float64")
    assert [str(getattr(te, f"fast_{f}")(x)) for f in FAST_FUNCTIONS] == [f"{f}(x)" for f in FAST_FUNCTIONS]
    n = 16
    A = te.placeholder((n,), name="A", dtype="float64")
    B = te.compute((n,), lambda i: te.fast_tanh(A[i]) + te.fast_erf(A[i]), name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(B.op.axis[0])
    a = np.linspace(-3, 3, n)
    b = np.full(n, np.nan)
    lower.build(s, [A, B], target="c")(a, b)
    np.testing.assert_allclose(b, np.tanh(a) + _erf(a), rtol=1e-14)


@pytest.mark.parametrize("func", FAST_FUNCTIONS)
def test_gradients_of_fast_math_are_those_of_the_functions(func):
    n = 8
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: getattr(te, f"fast_{func}")(A[i]), name="B")
    (G,) = te.gradient(B, [A], head=te.compute((n,), lambda i: te.const(1.0), name="ones"))
    a = np.linspace(0.25, 2.0, n).astype("float32")
    g = np.full(n, np.nan, "float32")
    lower.build(te.create_schedule(G.op), [G, A], target="c")(g, a)
    h = 1e-6
    x = a.astype(np.float64)
    numeric = (REFERENCE[func](x + h) - REFERENCE[func](x - h)) / (2 * h)
    np.testing.assert_allclose(g, numeric, rtol=1e-5)
