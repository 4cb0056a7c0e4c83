"""te.exp, log, tanh, sigmoid and erf of float32 in a vectorized loop on the C target: computed by the
vector polynomials (the source calls them), within 1 ulp of the correctly rounded result (one
more allowed, as for fast math, for compilers that fuse differently) over every sign and
exponent, with C's inf, nan and zeros; libm in scalar code, for other dtypes, and everywhere with
build(..., libm=True)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import lower
import schedule as te
from lower.backend.c.compile import find_compiler
from lower.backend.c.fast_math import MAX_ULPS
from lower.backend.c.vector_math import VECTOR_MATH

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

def _sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x < 0, e, 1.0) / (1.0 + e)


REFERENCE = {"exp": np.exp, "log": np.log, "tanh": np.tanh, "sigmoid": _sigmoid,
             "erf": lambda x: np.frompyfunc(math.erf, 1, 1)(x).astype(np.float64)}
#: Every sign and exponent (bit patterns 2^14 apart), and the values where methods change.
POINTS = np.concatenate([(np.arange(2**18, dtype=np.uint64) * 2**14 + 2**13 - 1).astype(np.uint32).view(np.float32),
                         np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.72283, -103.97, 1.4e-45, 0.625, 4.0],
                                  np.float32)])
POINTS = np.resize(POINTS, -(-POINTS.size // 16) * 16)


def _build(func: str, n: int, vector: bool, libm: bool = False, target: str = "c"):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: getattr(te, func)(A[i]), name="B")
    s = te.create_schedule(B.op)
    outer, inner = s[B].split(B.op.axis[0], factor=16)
    if vector:
        s[B].vectorize(inner)
    s[B].parallel(outer)
    return lower.build(s, [A, B], target=target, libm=libm)


def _ulps(got: np.ndarray, want: np.ndarray) -> int:
    def ordered(x):
        i = x.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    exact = ok & (np.isinf(want) | (want == 0))  # infinities and zeros exactly, with their signs
    np.testing.assert_array_equal(np.signbit(got[exact]), np.signbit(want[exact]))
    return int(np.abs(ordered(got[ok]) - ordered(want[ok])).max())


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("func", VECTOR_MATH)
def test_a_vector_loop_computes_math_by_polynomial_within_one_ulp(func):
    f = _build(func, POINTS.size, vector=True)
    assert f"tb_fast_{func}f_x" in f.get_source() and f"{func}f(" not in f.get_source().replace("tb_fast_", "")
    got = np.full_like(POINTS, 7.0)
    f(POINTS, got)
    with np.errstate(all="ignore"):
        want = REFERENCE[func](POINTS.astype(np.float64)).astype(np.float32)
    assert _ulps(got, want) <= MAX_ULPS[func] + 1
    python = np.full_like(POINTS, 7.0)
    _build(func, POINTS.size, vector=True, target="python")(POINTS, python)
    assert _ulps(python, want) <= 1  # the reference target: NumPy's function


@pytest.mark.parametrize("func", VECTOR_MATH)
def test_scalar_code_and_a_libm_build_call_libm(func):
    x = POINTS[:4096]
    with np.errstate(all="ignore"):
        want = REFERENCE[func](x.astype(np.float64)).astype(np.float32)
    for vector, libm in ((False, False), (True, True)):
        f = _build(func, x.size, vector=vector, libm=libm)
        assert "tb_fast_" not in f.get_source() and ("expf(" if func == "sigmoid" else f"{func}f(") in f.get_source()
        got = np.full_like(x, 7.0)
        f(x, got)
        assert _ulps(got, want) <= (2 if func == "sigmoid" else 1)  # sigmoid: 1 / (1 + expf(-x)) in float


@pytest.mark.parametrize("func, dtype", [("exp", "float64"), ("sigmoid", "float64")])
def test_other_dtypes_keep_libm_in_a_vector_loop(func, dtype):
    A = te.placeholder((32,), name="A", dtype=dtype)
    B = te.compute((32,), lambda i: getattr(te, func)(A[i]), name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(s[B].split(B.op.axis[0], factor=16)[1])
    f = lower.build(s, [A, B], target="c")
    assert "tb_fast_" not in f.get_source()
    x = np.linspace(-5, 5, 32).astype(dtype)
    got = np.zeros_like(x)
    f(x, got)
    want = 1 / (1 + np.exp(-x.astype(np.float64))) if func == "sigmoid" else np.exp(x.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_libm_must_be_a_bool_and_survives_export(tmp_path):
    A = te.placeholder((32,), name="A")
    B = te.compute((32,), lambda i: te.exp(A[i]), name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(s[B].split(B.op.axis[0], factor=16)[1])
    with pytest.raises(TypeError, match="libm"):
        lower.build(s, [A, B], target="c", libm="yes")
    f = lower.build(s, [A, B], target="c", libm=True)
    f.export_library(str(tmp_path / "k.so"))
    loaded = lower.load_module(str(tmp_path / "k.so"))
    assert loaded.libm and "tb_fast_" not in loaded.source
    x = np.linspace(-3, 3, 32).astype("float32")
    a, b = np.zeros_like(x), np.zeros_like(x)
    f(x, a)
    loaded(x, b)
    np.testing.assert_array_equal(a, b)
