"""te.fast_exp in the C target: within 2 ulp of the correctly rounded exp over the whole float
range (subnormal results, overflow to inf, inf, nan), vectorizable, and exact exp elsewhere."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build
from lower.backend.c.compile import find_compiler, native_vector_bytes

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


VECTOR = {"vector": True, "scalar": False}
#: The vector function's name for a vector loop of 16 floats on this machine.
VECTOR_CALL = f"tb_fast_expf_x{min(16, native_vector_bytes() // 4)}("


def _fast_exp_kernel(n: int, vector: bool = True):
    """fast_exp over n floats: in a vector loop (the vector function) or a serial one (the
    scalar function); the source is checked to call the one meant."""
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: te.fast_exp(A[i]), name="B")
    s = te.create_schedule(B.op)
    outer, inner = s[B].split(B.op.axis[0], factor=16)
    if vector:
        s[B].vectorize(inner)
    s[B].parallel(outer)
    f = build(s, [A, B], target="c")
    assert (VECTOR_CALL in f.get_source()) == vector
    return f


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between non-negative floats (inf counts as one
    past the largest float)."""
    return np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))


def _check(x: np.ndarray, vector: bool = True) -> int:
    f = _fast_exp_kernel(x.size, vector)
    got = np.zeros_like(x)
    f(x, got)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        want = np.exp(x.astype(np.float64)).astype(np.float32)
    nan = np.isnan(x)
    assert np.isnan(got[nan]).all()
    return int(_ulps(got[~nan], want[~nan]).max())


@pytest.mark.parametrize("vector", VECTOR.values(), ids=VECTOR.keys())
def test_within_two_ulps_over_the_whole_float_range(vector):
    bits = (np.arange(2**22, dtype=np.uint64) * 1024 + 511).astype(np.uint32)  # every sign and exponent
    assert _check(bits.view(np.float32), vector) <= 2


@pytest.mark.parametrize("vector", VECTOR.values(), ids=VECTOR.keys())
def test_within_two_ulps_on_a_dense_grid_where_exp_is_finite(vector):
    x = (np.arange(-104 * 1024, 89 * 1024) / 1024).astype(np.float32)
    assert _check(x, vector) <= 2


@pytest.mark.parametrize("vector", VECTOR.values(), ids=VECTOR.keys())
def test_special_values(vector):
    tiny = np.finfo(np.float32).smallest_subnormal
    x = np.array([0.0, -0.0, tiny, -tiny, np.inf, -np.inf, np.nan, 88.72283, 88.72284, -103.97, -104.0,
                  -87.33655, -87.4, 1e-30, -1e-30, 3.4e38, -3.4e38, 1.0], np.float32)
    x = np.resize(x, 32)
    f = _fast_exp_kernel(32, vector)
    got = np.zeros(32, np.float32)
    f(x, got)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        want = np.exp(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert (_ulps(got[ok], want[ok]) <= 2).all()
    assert got[4] == np.inf and got[5] == 0.0 and got[0] == 1.0


def test_the_loop_is_vectorized_and_the_python_target_computes_exp():
    n = 64
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: te.fast_exp(A[i] * 2), name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(s[B].split(B.op.axis[0], factor=16)[1])
    source = build(s, [A, B], target="c").get_source()
    assert VECTOR_CALL in source and " expf(" not in source
    a = np.linspace(-5, 5, n).astype("float32")
    b = np.zeros(n, "float32")
    build(s, [A, B], target="python")(a, b)
    np.testing.assert_allclose(b, np.exp(2 * a.astype(np.float64)), rtol=1e-6)


def test_fast_exp_of_another_dtype_is_exp_and_its_gradient_is_itself():
    x = te.var("x", dtype="float64")
    assert str(te.fast_exp(x)) == "exp(x)"
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: te.fast_exp(A[i]), name="B")
    (G,) = te.gradient(B, [A], head=te.compute((4,), lambda i: te.const(1.0), name="ones"))
    g = np.zeros(4, "float32")
    a = np.array([0, 1, -2, 3], "float32")
    build(te.create_schedule(G.op), [G, A], target="c")(g, a)
    np.testing.assert_allclose(g, np.exp(a), rtol=1e-6)
