"""``tvm.tir.trace``: the traced value (the last argument) passes through a registered action
with the other arguments each time the kernel computes it; a value the action returns replaces
it. Both targets call the action with the same arguments and compute the same arrays."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build
from schedule.ir.buffer import trace


@pytest.mark.parametrize("target", ["c", "python"])
@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_an_action_sees_every_traced_value_and_may_replace_it(target, dtype):
    seen = []
    te.register_func("test.trace_record", lambda i, v: seen.append((i, v)), override=True)
    te.register_func("test.trace_replace", lambda v: v * 10 if v > 1 else None, override=True)
    X = te.placeholder((4,), name="X", dtype=dtype)
    Y = te.compute((4,), lambda i: trace([i, X[i]], "test.trace_record") + trace([X[i]], "test.trace_replace"),
                   name="Y")
    x = np.array([0, 1, 2, 3], dtype)
    y = np.zeros(4, dtype)
    build(te.create_schedule(Y.op), [X, Y], target=target)(x, y)
    assert sorted(seen) == [(k, k) for k in range(4)]
    np.testing.assert_array_equal(y, x + np.where(x > 1, x * 10, x))


def test_the_default_action_prints_the_values(capsys):
    X = te.placeholder((2,), name="X", dtype="int32")
    Y = te.compute((2,), lambda i: trace([i, X[i]]), name="Y")
    y = np.zeros(2, "int32")
    build(te.create_schedule(Y.op), [X, Y], target="python")(np.array([5, 7], "int32"), y)
    assert capsys.readouterr().out.split("\n")[:2] == ["[0, 5]", "[1, 7]"]
    np.testing.assert_array_equal(y, [5, 7])


def test_trace_takes_a_list():
    with pytest.raises(TypeError, match="non-empty list"):
        trace(te.var("x"))
