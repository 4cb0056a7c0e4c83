"""Integer division in a kernel: a zero divisor, and the one quotient that overflows, are
Python exceptions on every target (C once died of SIGFPE), and the process lives."""

from __future__ import annotations

import pytest

from .isolated import TARGETS, run

OPERATIONS = {
    "floordiv": "te.floordiv(A[i], D[i])",
    "floormod": "te.floormod(A[i], D[i])",
    "truncdiv": "te.truncdiv(A[i], D[i])",
    "truncmod": "te.truncmod(A[i], D[i])",
    "//": "A[i] // D[i]",
    "%": "A[i] % D[i]",
}


def _scenario(op: str, dtype: str, a: list[int], d: list[int]) -> str:
    return f"""
        def main(target):
            A = te.placeholder(({len(a)},), "{dtype}", name="A")
            D = te.placeholder(({len(a)},), "{dtype}", name="D")
            B = te.compute(({len(a)},), lambda i: {OPERATIONS[op]}, name="B")
            f = build(te.create_schedule(B.op), [A, D, B], target=target)
            b = np.zeros({len(a)}, "{dtype}")
            f(np.array({a}, "{dtype}"), np.array({d}, "{dtype}"), b)
            return [b]
        """


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", OPERATIONS)
def test_a_zero_divisor_raises_zero_division_error(op, target):
    got = run(_scenario(op, "int32", [7, 8, 9, 10], [3, 2, 0, 5]), target)
    assert got.error == "ZeroDivisionError", got
    assert "by zero" in got.message


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["floordiv", "truncdiv", "//"])
def test_the_smallest_int_divided_by_minus_one_is_an_overflow_error(op, target):
    got = run(_scenario(op, "int32", [-2**31, 6], [-1, -1]), target)
    assert got.error == "OverflowError", got
    assert "2147483648" in got.message or "-1" in got.message


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["floormod", "truncmod", "%"])
def test_the_remainder_of_the_smallest_int_by_minus_one_is_zero(op, target):
    got = run(_scenario(op, "int32", [-2**31, 7, -7], [-1, -1, 3]), target)
    expected = {"floormod": [0, 0, 2], "%": [0, 0, 2], "truncmod": [0, 0, -1]}[op]
    assert got.arrays == [expected], got


@pytest.mark.parametrize("target", TARGETS)
def test_int64_and_unsigned_divisors_are_checked_too(target):
    for dtype in ("int64", "uint32", "int8"):
        got = run(_scenario("floordiv", dtype, [7, 8], [0, 1]), target)
        assert got.error == "ZeroDivisionError", (dtype, got)


@pytest.mark.parametrize("target", TARGETS)
def test_a_symbolic_divisor_of_zero_raises(target):
    got = run("""
        def main(target):
            n = te.var("n")
            A = te.placeholder((8,), "int32", name="A")
            B = te.compute((8,), lambda i: te.floordiv(A[i], n) + te.floormod(A[i], n), name="B")
            f = build(te.create_schedule(B.op), [A, B, n], target=target)
            b = np.zeros(8, "int32")
            f(np.arange(8, dtype="int32"), b, 3)
            first = b.copy()
            f(np.arange(8, dtype="int32"), b, 0)
            return [first]
        """, target)
    assert got.error == "ZeroDivisionError", got


@pytest.mark.parametrize("target", TARGETS)
def test_a_division_the_kernel_never_reaches_raises_nothing(target):
    # The guard keeps the division from running where the divisor is 0, on every target.
    got = run("""
        def main(target):
            A = te.placeholder((4,), "int32", name="A")
            D = te.placeholder((4,), "int32", name="D")
            B = te.compute((4,), lambda i: te.if_then_else(D[i] != 0, te.floordiv(A[i], D[i]), -1), name="B")
            f = build(te.create_schedule(B.op), [A, D, B], target=target)
            b = np.zeros(4, "int32")
            f(np.array([7, 8, 9, 10], "int32"), np.array([2, 0, -2, 0], "int32"), b)
            return [b]
        """, target)
    assert got.arrays == [[3, -1, -5, -1]], got


@pytest.mark.parametrize("target", TARGETS)
def test_a_vectorized_integer_division_by_zero_raises(target):
    got = run("""
        def main(target):
            A = te.placeholder((16,), "int32", name="A")
            D = te.placeholder((16,), "int32", name="D")
            B = te.compute((16,), lambda i: te.truncdiv(A[i], D[i]), name="B")
            s = te.create_schedule(B.op)
            s[B].vectorize(s[B].split(B.op.axis[0], 8)[1])
            f = build(s, [A, D, B], target=target)
            b = np.zeros(16, "int32")
            d = np.ones(16, "int32")
            d[11] = 0
            f(np.arange(16, dtype="int32"), d, b)
            return [b]
        """, target)
    assert got.error == "ZeroDivisionError", got
