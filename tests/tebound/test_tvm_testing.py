"""``tvm.testing`` as TVM's test files use it: the plugin's ``target``/``dev`` fixtures, features
that skip without their device, parametrized fixtures, and the checks. Each scenario runs a small
test file of its own under pytest with the plugin loaded, and reads what pytest reports."""

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from tebound.tvm.testing.targets import target_table

pytest_plugins = ["pytester"]

CONFTEST = "pytest_plugins = ['tebound.tvm.testing.plugin']\n"


def run(pytester, source: str, *args: str):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_scenario="import tebound.tvm as tvm\nimport pytest\n" + source)
    return pytester.runpytest_inprocess("-p", "no:xdist", "-p", "no:cacheprovider", "-rs", *args)


def test_a_test_taking_target_runs_on_the_cpu_and_a_gpu_case_skips(pytester, monkeypatch):
    monkeypatch.setenv("TVM_TEST_TARGETS", "llvm;cuda")
    result = run(pytester, """
seen = []
def test_auto(target, dev):
    seen.append((target, str(dev)))
    assert target == "llvm" and dev.device_type == "cpu"

@tvm.testing.parametrize_targets("llvm", "cuda")
def test_listed(target):
    assert target == "llvm"

@tvm.testing.requires_gpu
def test_gpu():
    raise AssertionError("no GPU is here")

@tvm.testing.requires_cuda
def test_cuda():
    raise AssertionError("no CUDA device is here")

@tvm.testing.uses_gpu
def test_uses_gpu_runs():
    for target, dev in tvm.testing.enabled_targets():
        assert target == "llvm"

@tvm.testing.exclude_targets("llvm")
def test_excluded(target):
    raise AssertionError("llvm was excluded")
""")
    result.assert_outcomes(passed=3, skipped=5)
    result.stdout.fnmatch_lines(["*Run-time support for gpu not present*"])


def test_tvm_default_targets_run_llvm_and_skip_every_other(pytester, monkeypatch):
    monkeypatch.delenv("TVM_TEST_TARGETS", raising=False)
    result = run(pytester, """
def test_auto(target, dev):
    assert target == "llvm" and dev.device_type == "cpu"
""")
    result.assert_outcomes(passed=1, skipped=len(tvm.testing.DEFAULT_TEST_TARGETS) - 1)


def test_parameters_take_their_values_together_and_parameter_each_in_turn(pytester):
    result = run(pytester, """
size = tvm.testing.parameter(1, 2, 3)
kind = tvm.testing.parameter(by_dict={"f": "float32", "i": "int32"})
a, b = tvm.testing.parameters((1, 10), (2, 20))
pairs = []

def test_cross(size, kind):
    pairs.append((size, kind))

def test_together(a, b):
    assert b == 10 * a

def test_count():
    assert len(pairs) == 6 and {k for _, k in pairs} == {"float32", "int32"}
""", "-v")
    result.assert_outcomes(passed=9)
    result.stdout.fnmatch_lines(["*test_cross?1-f?*", "*test_together?1-10?*"])


def test_a_cached_fixture_is_computed_once_and_given_as_a_copy(pytester):
    result = run(pytester, """
calls = []
n = tvm.testing.parameter(1, 2)

@tvm.testing.fixture(cache_return_value=True)
def data():
    calls.append(1)
    return [0, 0]

def test_mutate(n, data):
    assert data == [0, 0]
    data[0] = n

def test_once():
    assert len(calls) == 1
""")
    result.assert_outcomes(passed=3)


def test_known_failing_and_marked_cases(pytester):
    result = run(pytester, """
@tvm.testing.known_failing_targets("llvm")
@tvm.testing.parametrize_targets("llvm")
def test_fails_on_llvm(target):
    raise AssertionError

x = tvm.testing.parameter(1, 2)

@tvm.testing.skip_parameterizations("2", reason="two is skipped")
def test_x(x):
    assert x == 1
""")
    result.assert_outcomes(passed=1, skipped=1, xfailed=1)


def test_the_target_list_follows_tvm_test_targets(monkeypatch):
    monkeypatch.setenv("TVM_TEST_TARGETS", "cuda;llvm -mcpu=skylake")
    rows = target_table()
    assert [(r["target_kind"], r["is_enabled"], r["is_runnable"]) for r in rows] == [
        ("cuda", True, False), ("llvm", True, True)]
    assert tvm.testing.device_enabled("llvm") and not tvm.testing.device_enabled("cuda")
    monkeypatch.setenv("TVM_TEST_TARGETS", "cuda")
    assert [r["target"] for r in target_table()] == ["llvm"]  # nothing runnable: llvm, as TVM does
    with pytest.raises(TypeError, match="target is text"):
        tvm.testing.device_enabled(tvm.target.Target("llvm"))


def test_assert_prim_expr_equal_proves_or_raises():
    x = tvm.te.var("x")
    tvm.testing.assert_prim_expr_equal(x * 2 + x, 3 * x)
    with pytest.raises(ValueError, match="not equal"):
        tvm.testing.assert_prim_expr_equal(x + 1, x)


def test_numerical_gradients_accept_a_right_gradient_and_reject_a_wrong_one():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    tvm.testing.check_numerical_grads(lambda x, y: np.sum(x * y + x ** 2), [a, b], [b + 2 * a, a])
    tvm.testing.check_numerical_grads(lambda x: np.sum(np.sin(x)), {"x": a}, {"x": np.cos(a)})
    with pytest.raises(AssertionError, match="differ too much"):
        tvm.testing.check_numerical_grads(lambda x, y: np.sum(x * y), [a, b], [a, b])
    with pytest.raises(AssertionError, match="shape"):
        tvm.testing.check_numerical_grads(lambda x: np.sum(x), [a], [np.ones(3)])
