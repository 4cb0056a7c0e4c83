"""te.hybrid.build: a script's schedule as a module that runs on arrays, saves its source and
loads it back; each result against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from tebound.tvm import te
from tebound.tvm.te.hybrid import script


@script
def scaled_outer(n, a, b):
    c = output_tensor((n, n), a.dtype)  # noqa: F821 - a hybrid script's name
    for i in range(n):
        for j in range(n):
            c[i, j] = a[i] * b[j] + 1.0
    return c


@script
def twice_outer(a, b):
    d = output_tensor((4, 4), a.dtype)  # noqa: F821
    c = scaled_outer(4, a, b)
    for i in range(4):
        for j in range(4):
            d[i, j] = c[i, j] * 2.0
    return d


def _inputs(n):
    rng = np.random.default_rng(n)
    return rng.standard_normal(n).astype("float32"), rng.standard_normal(n).astype("float32")


def test_a_built_script_runs_its_schedule_and_loads_back_from_its_source(tmp_path):
    n = te.var("n")
    a, b = te.placeholder((n,), name="a"), te.placeholder((n,), name="b")
    c = scaled_outer(n, a, b)
    s = te.create_schedule(c.op)
    s[c].split(c.op.axis[0], 4)
    module = te.hybrid.build(s, [n, a, b], [c])
    x, y = _inputs(7)
    expected = np.outer(x, y) + 1
    np.testing.assert_allclose(module(7, x, y), expected, rtol=1e-6)
    path = tmp_path / f"{module.name}.py"
    module.save(str(path))
    loaded = te.hybrid.HybridModule()
    loaded.load(str(path))
    assert loaded.name == "scaled_outer" and "output_tensor" in path.read_text()
    np.testing.assert_allclose(loaded(7, x, y), expected, rtol=1e-6)
    again = loaded(n, a, b)  # on tensors: the script's operation, built again
    f = tvm.build(te.create_schedule(again.op), [n, a, b, again])
    out = np.full((7, 7), np.nan, dtype="float32")
    f(7, x, y, out)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_a_script_calling_another_keeps_its_globals():
    a, b = te.placeholder((4,), name="a"), te.placeholder((4,), name="b")
    d = twice_outer(a, b)
    module = te.hybrid.build(te.create_schedule(d.op), [a, b], [d])
    x, y = _inputs(4)
    np.testing.assert_allclose(module(x, y), 2 * (np.outer(x, y) + 1), rtol=1e-6)
    assert module(a, b).op.name == "twice_outer"


def test_build_refuses_outputs_of_no_script():
    a = te.placeholder((4,), name="a")
    b = te.compute((4,), lambda i: a[i] + 1, name="b")
    with pytest.raises(te.ScheduleError, match="no output comes from a hybrid script"):
        te.hybrid.build(te.create_schedule(b.op), [a], [b])
    with pytest.raises(ValueError, match="nothing built or loaded"):
        te.hybrid.HybridModule()(np.zeros(3))
