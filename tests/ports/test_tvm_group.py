"""TVM's group tests (test_te_group, and the group cases of the bound-inference tests), written
anew: ``s.create_group``, nested groups, a group inside a scan's body, compute_at of a group;
bounds as TVM infers them, and builds equal to NumPy in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from bound import infer_bound
from lower import lower
from schedule.ir.arith import value_of

from .run import random, run


def _chain():
    m, n = te.var("m"), te.var("n")
    x = te.compute((m, n), lambda i, j: te.const(1, "float32"), name="x")
    x1 = te.compute(x.shape, lambda i, j: x[i, j] + 1, name="x1")
    x2 = te.compute(x.shape, lambda i, j: x1[i, j] + 2, name="x2")
    return n, x, x1, x2


def _run_chain(s, x2, shape=(5, 7)):
    for exact in (False, True):
        (out,) = run(s, [x2], [], exact, shapes=[shape])
        np.testing.assert_array_equal(out, np.full(shape, 4, "float32"))


def test_compute_group():
    n, x, x1, x2 = _chain()
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    assert s[x1].group is g and s[x].group is g
    g.compute_at(s[x2], x2.op.axis[1])
    assert g.attach_stage is s[x2] and g.num_child_stages == 2
    # Both members run inside x2's inner loop, one element each.
    bounds = infer_bound(s, exact=False)
    assert all(value_of(bounds[t.op.axis[k]].extent) == 1 for t in (x, x1) for k in (0, 1))
    text = str(lower(s, [x2]))
    assert text.index("for (j") < text.index("x[0] = 1") < text.index("x1[0] =")
    _run_chain(s, x2)


def test_nest_group():
    n, x, x1, x2 = _chain()
    s = te.create_schedule(x2.op)
    g1 = s.create_group(outputs=x1, inputs=x)
    g2 = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    assert set(s.groups) == {g1, g2}
    assert s[x].group is g2 and s[x1].group is g1 and g1.group is g2
    assert g2.num_child_stages == 2 and g1.num_child_stages == 1
    _run_chain(s, x2)


def test_bound_group_schedule():
    n, x, x1, x2 = _chain()
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    g.compute_at(s[x2], x2.op.axis[0])
    assert s[x1].group is g and s[x].group is g
    for exact in (False, True):
        bounds = infer_bound(s, exact=exact)
        assert 1 == value_of(bounds[x.op.axis[0]].extent)
        assert te.structural_equal(bounds[x.op.axis[1]].extent, n)
    _run_chain(s, x2)


def test_bound_nest_group():
    n, x, x1, x2 = _chain()
    s = te.create_schedule(x2.op)
    g1 = s.create_group(outputs=x, inputs=x, include_inputs=True)
    g2 = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    assert s[x].group is g1 and s[x1].group is g2
    g2.compute_at(s[x2], x2.op.axis[0])
    g1.compute_at(s[x1], s[x1].op.axis[1])
    for exact in (False, True):
        bounds = infer_bound(s, exact=exact)
        assert 1 == value_of(bounds[x.op.axis[0]].extent)
        assert 1 == value_of(bounds[x.op.axis[1]].extent)
        assert 1 == value_of(bounds[x1.op.axis[0]].extent)
        assert te.structural_equal(bounds[x1.op.axis[1]].extent, n)
    _run_chain(s, x2)


def _scan():
    m, n = te.var("m"), te.var("n")
    x = te.compute((m, n), lambda i, j: te.const(1, "float32"), name="x")
    s_state = te.placeholder((m, n), name="s_state")
    s_init = te.compute((1, n), lambda _, i: x[0, i], name="s_init")
    s_update1 = te.compute((m, n), lambda t, i: s_state[t - 1, i] + x[t, i], name="s_update1")
    s_update2 = te.compute((m, n), lambda t, i: s_update1[t, i] + 1, name="s_update2")
    s_update3 = te.compute((m, n), lambda t, i: s_update2[t, i] + 1, name="s_update3")
    res = te.scan(s_init, s_update3, s_state, inputs=[x])
    return x, s_state, s_init, s_update1, s_update2, s_update3, res


def test_scan_group():
    x, s_state, s_init, s_update1, s_update2, s_update3, res = _scan()
    s = te.create_schedule(res.op)
    assert s[s_update1].group is not None and s[s_update2].group is s[s_update1].group
    # Within the group: allowed.
    s[s_update1].compute_at(s[s_update2], s_update2.op.axis[1])
    g2 = s.create_group(outputs=s_update2, inputs=[s_state, x])
    assert g2.group is not None and g2.group is s[s_update3].group
    assert s[s_update2].group is g2 and s[s_update1].group is g2
    g2.compute_at(s[s_update3], s_update3.op.axis[1])
    assert g2.attach_stage is s[s_update3]
    # Outside the group: refused, and nothing changes.
    with pytest.raises(te.ScheduleError, match="a member of a group is computed inside its group"):
        s[s_update2].compute_at(s[s_init], s_init.op.axis[0])
    assert s[s_update2].attach_type == te.AttachType.GroupRoot
    text = str(lower(s, [res]))
    assert text.index("for (i") < text.index("s_update1[0] =") < text.index("s_update2[0] =")
    for exact in (False, True):
        (out,) = run(s, [res], [], exact, shapes=[(4, 3)])
        # Each step adds 1 + 2 to the previous row; the first row is x's.
        np.testing.assert_array_equal(out, 1 + 3 * np.arange(4, dtype="float32")[:, None] * np.ones((1, 3)))


def test_a_group_computed_at_the_root_is_lowered_there():
    """TVM stops on a group that is never attached; its members are then computed at the root."""
    n, x, x1, x2 = _chain()
    s = te.create_schedule(x2.op)
    s.create_group(outputs=x1, inputs=x, include_inputs=True)
    _run_chain(s, x2)


def test_group_errors_leave_the_schedule_unchanged():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    C = te.compute((8,), lambda i: B[i] * 2, name="C")
    D = te.compute((8,), lambda i: C[i] - 1, name="D")
    s = te.create_schedule(D.op)
    g = s.create_group(outputs=C, inputs=A)
    assert {st.name for st in g.members()} == {"B", "C"}
    with pytest.raises(te.ScheduleError, match="member of the group"):
        g.compute_at(s[C], C.op.axis[0])
    with pytest.raises(te.ScheduleError, match="overlap"):
        s.create_group(outputs=D, inputs=B)
    with pytest.raises(te.ScheduleError, match="no stage lies on a path"):
        s.create_group(outputs=B, inputs=D)
    with pytest.raises(TypeError, match="include_inputs"):
        s.create_group(outputs=C, inputs=A, include_inputs="yes")
    assert g.attach_type == te.AttachType.GroupRoot and len(s.groups) == 1
    g.compute_at(s[D], D.op.axis[0])
    a = random((8,), seed=1)
    for exact in (False, True):
        (d,) = run(s, [A, D], [a], exact)
        np.testing.assert_array_equal(d, (a + 1) * 2 - 1)
