"""TVM's calling conventions for building and timing: ``build(s, args, "llvm")`` and
``f.time_evaluator(f.entry_name, dev, number=, repeat=, min_repeat_ms=)``."""

from __future__ import annotations

import time

import numpy as np
import pytest

import schedule as te
from lower import build
from lower.backend.c.compile import find_compiler
from lower.timing import time_evaluator

needs_cc = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


def _add_one():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1, name="B")
    return te.create_schedule(B.op), A, B


@needs_cc
@pytest.mark.parametrize("target", ["llvm", "llvm -mcpu=skylake-avx512", "c"])
def test_tvm_cpu_target_names_mean_c(target):
    s, A, B = _add_one()
    f = build(s, [A, B], target)
    assert f.target == "c" and f.entry_name == "default_function"
    a = np.arange(64, dtype="float32")
    b = np.full(64, np.nan, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, a + 1)


def test_other_targets_are_refused_naming_the_choices():
    s, A, B = _add_one()
    with pytest.raises(ValueError, match=r"build: target: no target 'tpu'; the targets are 'python', 'llvm', 'c', "
                                         r"'cuda', 'rocm', 'vulkan', 'metal', 'opencl'$"):
        build(s, [A, B], "tpu")
    with pytest.raises(TypeError, match="build: name must be a non-empty string"):
        build(s, [A, B], "python", name="")


def test_time_evaluator_warms_up_then_times_each_repeat():
    calls = []
    result = time_evaluator(lambda x: calls.append(x), number=4, repeat=3)(7)
    assert calls == [7] * (1 + 4 * 3)
    assert len(result.results) == 3 and result.min <= result.mean <= result.max
    assert result.min <= result.median <= result.max


def test_min_repeat_ms_grows_the_number_of_calls():
    calls = []

    def slow() -> None:
        calls.append(None)
        time.sleep(0.001)

    result = time_evaluator(slow, number=1, repeat=2, min_repeat_ms=8)()
    assert len(calls) >= 1 + 2 * 8  # each repeat lasts 8 ms of 1 ms calls
    assert all(1e-3 <= r < 0.1 for r in result.results)


def test_built_function_time_evaluator_runs_the_kernel():
    s, A, B = _add_one()
    f = build(s, [A, B], "python", name="add_one")
    a = np.arange(64, dtype="float32")
    b = np.full(64, np.nan, "float32")
    result = f.time_evaluator(f.entry_name, None, number=2, repeat=2)(a, b)
    assert len(result.results) == 2 and result.mean > 0
    np.testing.assert_array_equal(b, a + 1)
    assert "mean (ms)" in str(result)
    with pytest.raises(ValueError, match="time_evaluator: this function is 'add_one', not 'main'"):
        f.time_evaluator("main")
    with pytest.raises(ValueError, match="number must be a positive int, not 0"):
        f.time_evaluator(number=0)
    with pytest.raises(ValueError, match="min_repeat_ms must be a number of milliseconds >= 0"):
        f.time_evaluator(min_repeat_ms=-1)
