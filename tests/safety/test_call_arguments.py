"""Scalar arguments, shape variables and split factors that a kernel cannot run with are
refused before anything runs, with the same ValueError on every target."""

from __future__ import annotations

import pytest

from .isolated import TARGETS, run


@pytest.mark.parametrize("target", TARGETS)
def test_a_scalar_argument_outside_int32_is_refused(target):
    got = run("""
        def main(target):
            k = te.var("k")
            A = te.placeholder((4,), "int64", name="A")
            B = te.compute((4,), lambda i: A[i] + k.astype("int64"), name="B")
            f = build(te.create_schedule(B.op), [A, B, k], target=target)
            b = np.zeros(4, "int64")
            f(np.zeros(4, "int64"), b, 2**31 - 1)
            assert b.tolist() == [2**31 - 1] * 4
            f(np.zeros(4, "int64"), b, 2**31)
        """, target)
    assert got.error == "ValueError", got
    assert got.message.startswith("'k' is 2147483648, outside the range of its dtype int32 [-2147483648, 2147483647]")


@pytest.mark.parametrize("target", TARGETS)
def test_a_dimension_beyond_int32_for_an_int32_shape_variable_is_refused(target):
    # 2^31 + 16 bytes each, never touched: the call is refused before anything runs.
    got = run("""
        def main(target):
            n = te.var("n")
            A = te.placeholder((n,), "uint8", name="A")
            B = te.compute((n,), lambda i: A[i] + te.const(1, "uint8"), name="B")
            f = build(te.create_schedule(B.op), [A, B], target=target)
            f(np.zeros(2**31 + 16, "uint8"), np.zeros(2**31 + 16, "uint8"))
        """, target)
    assert got.error == "ValueError", got
    assert "'n' is 2147483664, outside the range of its dtype int32" in got.message


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("factor", [0, -3])
def test_a_split_factor_that_is_not_positive_is_refused(factor, target):
    got = run(f"""
        def main(target):
            m = te.var("m")
            A = te.placeholder((16,), name="A")
            B = te.compute((16,), lambda i: A[i] * 2, name="B")
            s = te.create_schedule(B.op)
            s[B].split(B.op.axis[0], factor=m)
            f = build(s, [A, B, m], target=target)
            b = np.zeros(16, "float32")
            f(np.ones(16, "float32"), b, 5)
            assert (b == 2).all()
            f(np.ones(16, "float32"), b, {factor})
        """, target)
    assert got.error == "ValueError", got
    assert f"stage 'B' splits 'i' with factor=m, which is {factor} for m = {factor}; it must be positive" \
        in got.message


@pytest.mark.parametrize("target", TARGETS)
def test_nparts_that_is_not_positive_is_refused(target):
    got = run("""
        def main(target):
            m = te.var("m")
            A = te.placeholder((16,), name="A")
            B = te.compute((16,), lambda i: A[i] * 2, name="B")
            s = te.create_schedule(B.op)
            s[B].split(B.op.axis[0], nparts=m - 1)
            f = build(s, [A, B, m], target=target)
            f(np.ones(16, "float32"), np.zeros(16, "float32"), 1)
        """, target)
    assert got.error == "ValueError", got
    assert "with nparts=(m - 1), which is 0 for m = 1; it must be positive" in got.message


@pytest.mark.parametrize("target", TARGETS)
def test_a_negative_extent_of_an_intermediate_tensor_is_refused(target):
    # n gives only the temporary T's shape: at n = -2 the output would be left unwritten.
    got = run("""
        def main(target):
            n = te.var("n")
            A = te.placeholder((4,), name="A")
            T = te.compute((n,), lambda i: A[0] + i, name="T")
            k = te.reduce_axis((0, n), name="k")
            B = te.compute((4,), lambda i: te.sum(T[k] + A[i], axis=k), name="B")
            f = build(te.create_schedule(B.op), [A, B, n], target=target)
            b = np.full(4, -1, "float32")
            f(np.zeros(4, "float32"), b, 0)
            assert b.tolist() == [0, 0, 0, 0]
            f(np.zeros(4, "float32"), b, 3)
            assert b.tolist() == [3, 3, 3, 3]
            f(np.zeros(4, "float32"), b, -2)
        """, target)
    assert got.error == "ValueError", got
    assert "tensor 'T' has n elements in dimension 0, which is -2 for n = -2; it must be at least 0" in got.message


@pytest.mark.parametrize("target", TARGETS)
def test_a_symbolic_shape_of_zero_is_an_empty_call(target):
    got = run("""
        def main(target):
            n = te.var("n")
            A = te.placeholder((n,), name="A")
            B = te.compute((n,), lambda i: A[i] * 2, name="B")
            s = te.create_schedule(B.op)
            s[B].split(B.op.axis[0], factor=4)
            f = build(s, [A, B], target=target)
            b = np.zeros(0, "float32")
            f(np.zeros(0, "float32"), b)
            return [b]
        """, target)
    assert got.arrays == [[]], got


def test_checks_false_turns_the_run_time_checks_off():
    import numpy as np

    import lower
    import schedule as te

    A = te.placeholder((8,), "int32", name="A")
    D = te.placeholder((8,), "int32", name="D")
    B = te.compute((8,), lambda i: te.floordiv(A[i], D[i]) + A[D[i] % 8], name="B")
    s = te.create_schedule(B.op)
    checked = lower.build(s, [A, D, B], target="c")
    unchecked = lower.build(s, [A, D, B], target="c", checks=False)
    assert "_checked(tb_ctx" in checked.get_source() and "tb_within" in checked.get_source().split("tb_main")[-1]
    assert "_checked(tb_ctx" not in unchecked.get_source()
    assert "tb_within(" not in unchecked.get_source().split("tb_main")[-1]
    a, d = np.arange(8, dtype="int32"), np.full(8, 3, "int32")
    expected = np.zeros(8, "int32")
    checked(a, d, expected)
    got = np.zeros(8, "int32")
    unchecked(a, d, got)
    np.testing.assert_array_equal(got, expected)
    x = np.arange(8, dtype="int32")  # the same array in and out: no overlap check either
    with pytest.raises(ValueError, match="share memory"):
        checked(x, d, x)
    unchecked(x, d, x)


def test_a_loop_bound_over_a_factor_near_the_int32_limit_does_not_wrap():
    # floordiv(n + m - 1, m) passed 2^31 for m = 2^31 - 1, and C ran no iteration: B stayed
    # unwritten. (C alone: the Python target runs the same 2^31 inner iterations, for hours.)
    import numpy as np

    import lower
    import schedule as te
    from lower.backend.c.compile import find_compiler

    if find_compiler() is None:
        pytest.skip("no C compiler")
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2 + 1, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=m)
    b = np.zeros(5, "float32")
    lower.build(s, [A, B, m], target="c")(np.ones(5, "float32"), b, 2**31 - 1)
    assert b.tolist() == [3.0] * 5
