"""TVM's test_te_schedule_graph, written anew: a scan's body and attach paths, the fix-point
analysis of its spatial axes, the read graph and its post-DFS order; the scans build equal to
NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build

BOTH = pytest.mark.parametrize("exact", [False, True])


def _scan_with_body():
    m, n = te.var("m"), te.var("n")
    x = te.compute((m, n), lambda i, j: te.const(1, "float32"), name="x")
    s_state = te.placeholder((m, n), name="state")
    s_init = te.compute((1, n), lambda _, i: x[0, i], name="s_init")
    x_trans = te.compute((m, n), lambda i, j: x[i, j] + 1, name="x_trans")
    s_up1 = te.compute((m, n), lambda t, i: s_state[t - 1, i] + 1, name="up1")
    s_update = te.compute((m, n), lambda t, i: s_up1[t, i] + x_trans[t, i], name="update")
    return te.scan(s_init, s_update, s_state), s_update, s_up1, x_trans


@BOTH
def test_scan_body_attach_path_and_fix_point(exact):
    s_scan, s_update, s_up1, x_trans = _scan_with_body()
    assert set(te.schedule.ScanGetBody(s_scan.op)) == {s_scan.op, s_update.op, s_up1.op}
    s = te.create_schedule(s_scan.op)
    s[x_trans].compute_at(s[s_update], s_update.op.axis[0])
    apath = te.schedule.CreateAttachPath(s)
    assert tuple(apath[s_update.op]) == (s_scan.op.scan_axis,)
    assert tuple(apath[x_trans.op]) == (s_update.op.axis[0], s_scan.op.scan_axis)
    assert te.schedule.ScanFixPointAnalysis(s_scan.op)[s_scan.op.spatial_axis_[0]].value != 0
    out = np.full((5, 3), np.nan, "float32")
    build(s, [s_scan], exact=exact)(out)
    # row t = row t-1 + up1 (+1) + x_trans (1 + 1)
    np.testing.assert_array_equal(out, 1 + 3 * np.arange(5, dtype="float32")[:, None].repeat(3, 1))


def _state3():
    m, n, l = te.var("m"), te.var("n"), te.var("l")
    x = te.compute((l, m, n), lambda *i: te.const(1, "float32"), name="x")
    s_state = te.placeholder((l, m, n), name="state")
    s_init = te.compute((1, m, n), lambda _, i, j: x[0, i, j], name="s_init")
    return (l, m, n), x, s_state, s_init


def _fixed(update_of) -> list[int]:
    (l, m, n), x, s_state, s_init = _state3()
    s_scan = te.scan(s_init, update_of((l, m, n), x, s_state), s_state)
    fxpt = te.schedule.ScanFixPointAnalysis(s_scan.op)
    return [fxpt[iv].value for iv in s_scan.op.spatial_axis_]


def test_fix_point_of_a_direct_read():
    assert _fixed(lambda sh, x, st: te.compute(sh, lambda t, i, j: x[t, j, i] + st[t - 1, i, j], name="update")) == [1, 1]


def test_fix_point_of_a_transposed_read():
    assert _fixed(lambda sh, x, st: te.compute(sh, lambda t, i, j: x[t, j, i] + st[t - 1, j, i], name="update")) == [0, 0]


def test_fix_point_not_exactly_reached():
    def update(sh, x, st):
        l, m, n = sh
        h1 = te.compute((l, n, m), lambda t, j, i: st[t - 1, i, j], name="h1")
        h2 = te.compute((l, m, n), lambda t, i, j: st[t - 1, i, 10] * 2, name="h2")
        return te.compute(sh, lambda t, i, j: h1[t, j, i] + h2[t, i, j], name="update")

    assert _fixed(update) == [1, 0]


def test_fix_point_reaching_another_axis():
    def update(sh, x, st):
        l, m, n = sh
        h1 = te.compute((l, n, m), lambda t, j, i: st[t - 1, j, j], name="h1")
        h2 = te.compute((l, m, n), lambda t, i, j: st[t - 1, i, j] * 2, name="h2")
        return te.compute(sh, lambda t, i, j: h1[t, j, i] + h2[t, i, j], name="update")

    assert _fixed(update) == [0, 0]


@BOTH
def test_fix_point_of_a_multi_output_scan(exact):
    m, n = te.var("m"), te.var("n")
    x1, s1, x2, s2 = (te.placeholder((m, n), name=name) for name in ("x1", "s1", "x2", "s2"))
    s1_init = te.compute((1, n), lambda _, i: x1[0, i], name="s1_init")
    s2_init = te.compute((1, n), lambda _, i: x2[0, i], name="s2_init")
    s1_update = te.compute((m, n), lambda t, i: s1[t - 1, i] + x1[t, i], name="s1_update")
    s2_update = te.compute((m, n), lambda t, i: x2[t, i] + s2[t - 1, i], name="s2_update")
    r0, r1 = te.scan([s1_init, s2_init], [s1_update, s2_update], [s1, s2])
    assert len(te.schedule.ScanGetBody(r0.op)) == 3
    assert te.schedule.ScanFixPointAnalysis(r0.op)[r1.op.spatial_axis_[1]].value == 1
    a, b = np.arange(12, dtype="float32").reshape(4, 3), np.ones((4, 3), "float32")
    o0, o1 = np.full((4, 3), np.nan, "float32"), np.full((4, 3), np.nan, "float32")
    build(te.create_schedule(r0.op), [x1, x2, r0, r1], exact=exact)(a, b, o0, o1)
    np.testing.assert_array_equal(o0, np.cumsum(a, axis=0))
    np.testing.assert_array_equal(o1, np.cumsum(b, axis=0))


def test_create_read_graph_and_post_dfs_order():
    m, l = te.var("m"), te.var("l")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")
    g = te.schedule.CreateReadGraph([A2.op])
    assert g[A2.op][0] == A1 and g[A1.op][0] == A
    post_order = te.schedule.PostDFSOrder([A2.op], g)
    assert post_order[0] == A.op and post_order[1] == A1.op
    with pytest.raises(TypeError, match="ScanFixPointAnalysis: expected a scan operation, not ComputeOp"):
        te.schedule.ScanFixPointAnalysis(A2.op)
