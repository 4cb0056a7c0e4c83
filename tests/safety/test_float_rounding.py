"""Floating-point results round as NumPy rounds them: the C compiler does not fuse a * b + c
unless fast math is asked for."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import lower
import schedule as te
from lower.backend.c.compile import find_compiler

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


def _dot2(n=4096):
    A, B, C, D = (te.placeholder((n,), name=x) for x in "ABCD")
    E = te.compute((n,), lambda i: A[i] * B[i] + C[i] * D[i], name="E")
    s = te.create_schedule(E.op)
    s[E].vectorize(s[E].split(E.op.axis[0], 16)[1])
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(n).astype("float32") for _ in range(4)]
    return s, [A, B, C, D, E], arrays


def test_a_sum_of_products_rounds_each_operation_as_numpy_does():
    s, args, (a, b, c, d) = _dot2()
    e = np.zeros_like(a)
    lower.build(s, args, target="c")(a, b, c, d, e)
    np.testing.assert_array_equal(e, a * b + c * d)  # bit for bit
    assert "-ffp-contract=off" in lower.backend.c.compile.FLAGS


@pytest.mark.parametrize("how", ["keyword", "target"])
def test_fast_math_is_an_option_of_build(how):
    s, args, (a, b, c, d) = _dot2()
    e = np.zeros_like(a)
    f = lower.build(s, args, target="c", fast_math=True) if how == "keyword" else \
        lower.build(s, args, target="llvm -fast-math")
    f(a, b, c, d, e)
    np.testing.assert_allclose(e, a * b + c * d, rtol=1e-5, atol=1e-6)
    ref = lower.build(s, args, target="c")
    assert f._kernel._lib._name != ref._kernel._lib._name  # another kernel: compiled with other flags


def test_fast_math_must_be_a_bool():
    s, args, _ = _dot2(16)
    with pytest.raises(TypeError, match="fast_math= must be True or False"):
        lower.build(s, args, fast_math="yes")


OPERATIONS = {
    "divide": lambda A, B, i: A[i] / B[i], "log": lambda A, B, i: te.log(A[i]),
    "sqrt": lambda A, B, i: te.sqrt(A[i] - 5), "floordiv": lambda A, B, i: te.floordiv(A[i], B[i]),
    "floormod": lambda A, B, i: te.floormod(A[i], B[i]), "power": lambda A, B, i: te.power(A[i] - 2, 0.5),
    "floor": lambda A, B, i: te.floor(A[i] / B[i]), "exp": lambda A, B, i: te.exp(A[i] * 1000),
    "truncmod": lambda A, B, i: te.truncmod(A[i], B[i]),
}


@pytest.mark.parametrize("op", OPERATIONS)
def test_floats_give_ieee_results_on_both_targets(op):
    # The Python target once raised where C (and NumPy) give inf or NaN: 1 / 0, log(0), sqrt(-1).
    A, B = te.placeholder((4,), name="A"), te.placeholder((4,), name="B")
    C = te.compute((4,), lambda i: OPERATIONS[op](A, B, i), name="C")
    s = te.create_schedule(C.op)
    a, b = np.array([0, 1, 2, 3], "float32"), np.array([0, 1, 0, 2], "float32")
    got = {}
    for target in ("python", "c"):
        c = np.zeros(4, "float32")
        lower.build(s, [A, B, C], target=target)(a, b, c)
        got[target] = c
    np.testing.assert_array_equal(got["python"], got["c"])
    with np.errstate(all="ignore"):
        expected = {"divide": a / b, "log": np.log(a), "sqrt": np.sqrt(a - 5), "floordiv": np.floor(a / b),
                    "floormod": a - np.floor(a / b) * b, "power": np.power(a - 2, 0.5), "floor": np.floor(a / b),
                    "exp": np.exp(a * 1000), "truncmod": np.fmod(a, b)}[op]
    np.testing.assert_array_equal(got["c"], expected.astype("float32"))


def test_loading_a_fast_math_kernel_keeps_the_processes_subnormals():
    """GCC links crtfastmath.o into a library linked with -ffast-math; its constructor would set
    flush-to-zero for the whole process when the kernel loads (NumPy's 1e-40 then reads as 0).
    In a fresh interpreter: build and run a fast-math kernel, then compute a subnormal."""
    script = (
        "import numpy as np, lower, schedule as te\n"
        "A = te.placeholder((8,), name='A'); B = te.compute((8,), lambda i: A[i] * 2, name='B')\n"
        "f = lower.build(te.create_schedule(B.op), [A, B], target='llvm -fast-math')\n"
        "b = np.zeros(8, 'float32'); f(np.ones(8, 'float32'), b); assert (b == 2).all()\n"
        "tiny = np.float32(1e-40) * np.float32(1.0)\n"
        "print(repr(float(tiny)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) != 0.0
