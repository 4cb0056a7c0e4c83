"""TVM's intrinsic-math tutorial, written anew: math calls, external calls and lowering rules
for intrinsics, built for each target and equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import schedule.base.packed as packed
import schedule.ir.extern_calls as extern_calls
from lower import build, lower
from lower.errors import LoweringError


@pytest.fixture(autouse=True)
def own_rules(monkeypatch):
    """Rules and functions registered here stay here."""
    monkeypatch.setattr(extern_calls, "_RULES", dict(extern_calls._RULES))
    monkeypatch.setattr(packed, "_FUNCS", dict(packed._FUNCS))


def _unary(f, name="B"):
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute(A.shape, lambda i: f(A[i]), name=name)
    return A, B, te.create_schedule(B.op)


def _run(s, A, B, a):
    b = np.full(a.shape, np.nan, "float32")
    fn = build(s, [A, B])
    fn(a, b)
    return b, fn.source


#: How each target's source calls the exponential directly, and through an external call.
_EXP = {"python": ("_math['exp']", "_extern['{}']"), "c": ("expf((float)A[i])", "expf((float)A[i])")}


def test_direct_math_call(default_target):
    A, B, s = _unary(te.exp)
    b, source = _run(s, A, B, np.linspace(-2, 2, 9).astype("float32"))
    np.testing.assert_allclose(b, np.exp(np.linspace(-2, 2, 9)), rtol=1e-6)
    assert _EXP[default_target][0] in source


def test_call_pure_extern_runs_the_c_function_of_that_name(default_target):
    A, B, s = _unary(lambda x: te.call_pure_extern("float32", "__expf", x))
    assert "B[i] = call_pure_extern(\"__expf\", A[i])" in str(lower(s, [A, B]))
    a = np.linspace(-2, 2, 9).astype("float32")
    b, source = _run(s, A, B, a)
    np.testing.assert_allclose(b, np.exp(a), rtol=1e-6)
    assert _EXP[default_target][1].format("__expf") in source


def test_a_lowering_rule_for_the_target_replaces_the_intrinsic(default_target):
    def rule(op):
        name = op.name  # "exp"
        return te.call_pure_extern("float32", f"{name}f", op.args[0]) if op.dtype == "float32" else op
    te.register_intrin_lowering("tir.exp", target=default_target, f=rule, level=99)
    te.register_intrin_lowering("tir.exp", target="cuda", f=lambda op: 1 / 0, level=99)  # never used here
    A, B, s = _unary(te.exp)
    a = np.linspace(-2, 2, 9).astype("float32")
    b, source = _run(s, A, B, a)
    np.testing.assert_allclose(b, np.exp(a), rtol=1e-6)
    assert _EXP[default_target][1].format("expf") in source
    assert default_target == "c" or "_math['exp']" not in source
    assert "exp(A[i])" in str(lower(s, [A, B]))  # lower prints the intrinsic; build lowers it


def test_a_rule_for_another_target_is_not_used():
    te.register_intrin_lowering("tir.exp", target="python", f=lambda op: op.args[0], level=99)
    A, B, s = _unary(te.exp)
    a = np.linspace(-2, 2, 9).astype("float32")
    b = np.full(a.shape, np.nan, "float32")
    build(s, [A, B], target="c")(a, b)
    np.testing.assert_allclose(b, np.exp(a), rtol=1e-6)


def test_add_your_own_intrinsic(default_target):
    def mylog(x):
        return te.call_intrin(x.dtype, "tir.mylog", x)

    A, B, s = _unary(mylog)
    with pytest.raises(LoweringError, match=f"unknown intrinsic 'mylog'.*register_intrin_lowering.*'{default_target}'"):
        build(s, [A, B])
    te.register_intrin_lowering("tir.mylog", target=default_target,
                                f=lambda op: te.call_pure_extern("float32", "logf", op.args[0]), level=99)
    te.register_intrin_lowering("tir.mylog", target=default_target, f=lambda op: op.args[0], level=1)  # ignored
    a = np.linspace(1, 3, 9).astype("float32")
    b, _ = _run(s, A, B, a)
    np.testing.assert_allclose(b, np.log(a), rtol=1e-6)


def test_an_unknown_external_function_is_named_and_can_be_registered():
    A, B, s = _unary(lambda x: te.call_pure_extern("float32", "my_cube", x))
    with pytest.raises(LoweringError, match="external function 'my_cube'.*te.register_func"):
        build(s, [A, B])
    te.register_func("my_cube", lambda x: x ** 3, override=True)
    a = np.linspace(-2, 2, 9).astype("float32")
    b, _ = _run(s, A, B, a)
    np.testing.assert_allclose(b, a ** 3, rtol=1e-6)
