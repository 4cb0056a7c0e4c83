"""TVM's scan: the scan tutorial and the scan cases of its te unit tests, written anew.

Each builds and runs equal to NumPy in both modes (outputs start as NaN).
"""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from bound import explain, infer_bound
from lower import lower
from schedule.base.errors import ScheduleError
from schedule.ir.evaluate import evaluate
from schedule.ir.functor import free_vars

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])


def _cumsum(m, n):
    X = te.placeholder((m, n), name="X")
    s_state = te.placeholder((m, n), name="s_state")
    s_init = te.compute((1, n), lambda _, i: X[0, i], name="s_init")
    s_update = te.compute((m, n), lambda t, i: s_state[t - 1, i] + X[t, i], name="s_update")
    s_scan = te.scan(s_init, s_update, s_state, inputs=[X], name="scan")
    return X, s_init, s_update, s_scan


CUMSUM_IR = """\
produce scan {
  produce s_init {
    for (i, 0, n) {
      scan[i] = X[i]
    }
  }
  for (scan.idx, 0, (m - 1)) {
    produce s_update {
      for (i, 0, n) {
        scan[(((scan.idx + 1)*n) + i)] = (scan[((scan.idx*n) + i)] + X[(((scan.idx + 1)*n) + i)])
      }
    }
  }
}
"""


@BOTH
def test_tutorial_cumulative_sum(exact):
    m, n = te.var("m"), te.var("n")
    X, _, _, s_scan = _cumsum(m, n)
    s = te.create_schedule(s_scan.op)
    # TVM: the init row, then one loop over the scan axis whose body writes row scan.idx + 1
    # of the scan's own buffer, reading row scan.idx of it.
    assert str(lower(s, [X, s_scan], exact=exact)) == CUMSUM_IR
    x = random((7, 5))
    (out,) = run(s, [X, s_scan], [x], exact)
    np.testing.assert_array_equal(out, np.cumsum(x, axis=0))


@BOTH
def test_tutorial_multi_stage_scan_cell(exact):
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    s_state = te.placeholder((m, n), name="s_state")
    s_init = te.compute((1, n), lambda _, i: X[0, i], name="s_init")
    s_update_s1 = te.compute((m, n), lambda t, i: s_state[t - 1, i] * 2, name="s1")
    s_update_s2 = te.compute((m, n), lambda t, i: s_update_s1[t, i] + X[t, i], name="s2")
    s_scan = te.scan(s_init, s_update_s2, s_state, inputs=[X])
    s = te.create_schedule(s_scan.op)
    xo, xi = s[s_update_s2].split(s_update_s2.op.axis[1], factor=32)
    s[s_update_s1].compute_at(s[s_update_s2], xo)
    text = str(lower(s, [X, s_scan], exact=exact))
    assert text.index("for (scan.idx") < text.index("produce s2") < text.index("produce s1")
    x = random((6, 70))
    (out,) = run(s, [X, s_scan], [x], exact)
    expected = x.copy()
    for t in range(1, 6):
        expected[t] = expected[t - 1] * 2 + x[t]
    np.testing.assert_array_equal(out, expected)


@BOTH
def test_tutorial_multiple_states(exact):
    m, n, l = te.var("m"), te.var("n"), te.var("l")
    X = te.placeholder((m, n), name="X")
    s_state1 = te.placeholder((m, n), name="s_state1")
    s_state2 = te.placeholder((m, l), name="s_state2")
    s_init1 = te.compute((1, n), lambda _, i: X[0, i], name="s_init1")
    s_init2 = te.compute((1, l), lambda _, i: te.const(0.0, "float32"), name="s_init2")
    s_update1 = te.compute((m, n), lambda t, i: s_state1[t - 1, i] + X[t, i], name="s_update1")
    s_update2 = te.compute((m, l), lambda t, i: s_state2[t - 1, i] + s_state1[t - 1, 0], name="s_update2")
    s_scan1, s_scan2 = te.scan([s_init1, s_init2], [s_update1, s_update2], [s_state1, s_state2], inputs=[X])
    assert (s_scan1.value_index, s_scan2.value_index) == (0, 1)
    s = te.create_schedule(s_scan1.op)
    x = random((5, 3))
    out1, out2 = run(s, [X, s_scan1, s_scan2], [x], exact, shapes=[(5, 3), (5, 4)])
    np.testing.assert_array_equal(out1, np.cumsum(x, axis=0))
    expected2 = np.zeros((5, 4), "float32")
    for t in range(1, 5):
        expected2[t] = expected2[t - 1] + out1[t - 1, 0]
    np.testing.assert_array_equal(out2, expected2)


@BOTH
def test_schedule_scan_of_a_computed_input(exact):
    """TVM's test_schedule_scan: the scan axis starts at 1; the input is a compute outside the body."""
    m, n = te.var("m"), te.var("n")
    x = te.compute((m, n), lambda i, j: te.const(1, "float32"), name="x")
    s_state = te.placeholder((m, n), name="s_state")
    s_init = te.compute((1, n), lambda _, i: x[0, i], name="s_init")
    s_update = te.compute((m, n), lambda t, i: s_state[t - 1, i] + x[t, i], name="s_update")
    res = te.scan(s_init, s_update, s_state)
    assert tuple(res.shape) == (m, n)
    s = te.create_schedule(res.op)
    assert s[x].attach_type == te.AttachType.GroupRoot  # it does not read the state
    bounds = infer_bound(s, exact=exact)
    assert te.const(1) == bounds[res.op.scan_axis].min
    (out,) = run(s, [res], [], exact, shapes=[(4, 3)])
    np.testing.assert_array_equal(out, np.tile(np.arange(1, 5, dtype="float32")[:, None], (1, 3)))


@BOTH
def test_bound_scan_with_a_cached_input(exact):
    """TVM's test_bound_scan: a local copy of the input computed per split of the update."""
    m, n = te.var("m"), te.var("n")
    X = te.compute((m, n), lambda i, j: te.const(1, "float32"), name="x")
    s_state = te.placeholder((m, n), name="s_state")
    s_init = te.compute((1, n), lambda _, i: X[0, i], name="s_init")
    s_update = te.compute((m, n), lambda t, i: s_state[t - 1, i] + X[t, i], name="s_update")
    s_scan = te.scan(s_init, s_update, s_state)
    s = te.create_schedule(s_scan.op)
    XX = s.cache_read(X, "local", s_update)
    xo, xi = s[s_update].split(s_update.op.axis[1], factor=4)
    s[XX].compute_at(s[s_update], xo)
    extent = infer_bound(s, exact=exact)[XX.op.axis[1]].extent
    if not exact:
        assert te.const(4) == extent  # TVM's figure
    else:  # exact: the split's tail is shorter (n = 10: the third part has 2 columns)
        env = {v.name: v for v in free_vars([extent])}
        assert evaluate(extent, {env["n"]: 10, env["i.outer"]: 1}) == 4
        assert evaluate(extent, {env["n"]: 10, env["i.outer"]: 2}) == 2
    (out,) = run(s, [s_scan], [], exact, shapes=[(3, 8)])
    np.testing.assert_array_equal(out, np.tile(np.arange(1, 4, dtype="float32")[:, None], (1, 8)))


def _two_scans(inline: str):
    m, n = te.var("m"), te.var("n")
    x = te.compute((m, n), lambda i, j: te.const(1, "float32"), name="x")
    s_state1 = te.placeholder((m, n), name="s_state1")
    s_state2 = te.placeholder((m, n), name="s_state2")
    s_init1 = te.compute((1, n), lambda _, i: x[0, i], name="s_init1")
    s_init2 = te.compute((1, n), lambda _, i: x[0, i], name="s_init2")
    if inline == "one":
        s_x1 = te.compute((m, n), lambda t, i: s_state1[t - 1, i] + x[t, i], name="x1")
        s_x2 = te.compute((m, n), lambda t, i: s_state2[t - 1, i] + 1, name="x2")
        inlined = [s_x1]
    else:
        s_xx = te.compute((m, n), lambda t, i: s_state1[t - 1, i] + x[t, i], name="xx")
        s_x1 = te.compute((m, n), lambda t, i: s_xx[t, i] + 1, name="x1")
        s_x2 = te.compute((m, n), lambda t, i: s_xx[t, i] + s_state2[t - 1, 2], name="x2")
        inlined = [s_xx, s_x1, s_x2]
    s_update1 = te.compute((m, n), lambda t, i: s_x1[t, i], name="u1")
    s_update2 = te.compute((m, n), lambda t, i: s_x2[t, i], name="u2")
    res1, res2 = te.scan([s_init1, s_init2], [s_update1, s_update2], [s_state1, s_state2])
    return x, res1, res2, inlined


@BOTH
@pytest.mark.parametrize("inline", ["one", "three"])
def test_scan_inline(inline, exact):
    """TVM's test_scan_inline1 and test_scan_inline2: stages of a two-output scan's body inlined."""
    x, res1, res2, inlined = _two_scans(inline)
    s = te.create_schedule(res1.op)
    for t in inlined:
        s[t].compute_inline()
    out1, out2 = run(s, [res1, res2], [], exact, shapes=[(5, 4), (5, 4)])
    e1, e2 = np.ones((5, 4), "float32"), np.ones((5, 4), "float32")
    for t in range(1, 5):
        if inline == "one":
            e1[t], e2[t] = e1[t - 1] + 1, e2[t - 1] + 1
        else:
            e1[t], e2[t] = e1[t - 1] + 2, e1[t - 1] + 1 + e2[t - 1, 2]
    np.testing.assert_array_equal(out1, e1)
    np.testing.assert_array_equal(out2, e2)


@BOTH
def test_scan_multi_out(exact):
    """TVM's test_scan_multi_out: one update reads both states."""
    m, n = te.var("m"), te.var("n")
    x1, x2 = te.placeholder((m, n), name="x1"), te.placeholder((m, n), name="x2")
    s1, s2 = te.placeholder((m, n), name="s1"), te.placeholder((m, n), name="s2")
    s1_init = te.compute((1, n), lambda _, i: x1[0, i], name="s1_init")
    s2_init = te.compute((1, n), lambda _, i: x2[0, i], name="s2_init")
    s1_update = te.compute((m, n), lambda t, i: s1[t - 1, i] + s2[t - 1, i] + x1[t, i], name="s1_update")
    s2_update = te.compute((m, n), lambda t, i: x2[t, i] + s2[t - 1, i], name="s2_update")
    r0, r1 = te.scan([s1_init, s2_init], [s1_update, s2_update], [s1, s2], inputs=[x1, x2])
    assert (r0.value_index, r1.value_index) == (0, 1)
    s = te.create_schedule(r0.op)
    a, b = random((6, 3), seed=1), random((6, 3), seed=2)
    out0, out1 = run(s, [x1, x2, r0, r1], [a, b], exact)
    e0, e1 = a.copy(), b.copy()
    for t in range(1, 6):
        e1[t] = b[t] + e1[t - 1]
        e0[t] = e0[t - 1] + e1[t - 1] + a[t]
    np.testing.assert_array_equal(out1, e1)
    np.testing.assert_array_equal(out0, e0)


@BOTH
def test_explain_counts_each_step(exact):
    X, s_init, s_update, s_scan = _cumsum(6, 4)
    report = explain(te.create_schedule(s_scan.op), exact=exact)
    assert (report[s_scan].computed, report[s_scan].needed) == (24, 24)
    # One row per step: rows 1 to 5, each of 4 elements, each read once by the scan.
    assert (report[s_update].computed, report[s_update].needed) == (20, 20)
    assert (report[s_init].computed, report[s_init].needed) == (4, 4)


def test_errors_name_the_scan_and_what_is_wrong():
    m, n = te.var("m"), te.var("n")
    X, s_init, s_update, s_scan = _cumsum(m, n)
    s = te.create_schedule(s_scan.op)
    with pytest.raises(ScheduleError, match="update of scan 'scan'"):
        s[s_update].compute_inline()
    with pytest.raises(ScheduleError, match="update of scan 'scan'"):
        s[s_update].compute_root()
    assert s[s_update].attach_type == te.AttachType.ScanUpdate  # unchanged
    state = te.placeholder((m, n), name="state")
    with pytest.raises(ScheduleError, match="dtypes"):
        te.scan(s_init, te.compute((m, n), lambda t, i: te.const(1, "int32"), name="u"), state)
    with pytest.raises(ScheduleError, match="dimension 1"):
        te.scan(s_init, te.compute((m, n + 1), lambda t, i: state[t - 1, 0], name="u"), state)
    with pytest.raises(TypeError, match="init must be tensors"):
        te.scan([1], [s_update], [state])


def test_a_body_stage_computed_at_the_root_stays_in_the_step():
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    s_state = te.placeholder((m, n), name="s_state")
    s_init = te.compute((1, n), lambda _, i: X[0, i], name="s_init")
    s1 = te.compute((m, n), lambda t, i: s_state[t - 1, i] * 2, name="s1")
    s2 = te.compute((m, n), lambda t, i: s1[t, i] + X[t, i], name="s2")
    s_scan = te.scan(s_init, s2, s_state, inputs=[X])
    s = te.create_schedule(s_scan.op)
    s[s1].compute_at(s[s2], s2.op.axis[0])
    s[s1].compute_root()
    # At the root of its group, the scan's body: normalized, at each step of the scan.
    assert s[s1].attach_type == te.AttachType.GroupRoot and s[s1].group is s[s2].group is not None
    assert s.normalize()[s1].attach_type == te.AttachType.ScanUpdate
    x = random((4, 3))
    for exact in (False, True):
        (out,) = run(s, [X, s_scan], [x], exact)
        expected = x.copy()
        for t in range(1, 4):
            expected[t] = expected[t - 1] * 2 + x[t]
        np.testing.assert_array_equal(out, expected)


def test_explain_counts_no_storage_of_their_own_for_init_and_update():
    """Lowering stores a scan's init and update in the scan's output (no allocate of theirs)."""
    from bound import explain
    from lower import lower

    m, n = 6, 4
    X = te.placeholder((m, n), name="X")
    s_state = te.placeholder((m, n), name="s_state")
    s_init = te.compute((1, n), lambda _, i: X[0, i], name="s_init")
    s_update = te.compute((m, n), lambda t, i: s_state[t - 1, i] + X[t, i], name="s_update")
    s_scan = te.scan(s_init, s_update, s_state, inputs=[X])
    s = te.create_schedule(s_scan.op)
    assert "allocate" not in str(lower(s, [X, s_scan]))
    for exact in (False, True):
        rows = explain(s, exact=exact)
        assert (rows[s_init].allocated, rows[s_init].computed) == (0, n)
        assert (rows[s_update].allocated, rows[s_update].computed) == (0, (m - 1) * n)
        assert rows[s_scan].allocated == m * n
