"""UnrollLoop (TVM's pass and its tests, written anew): unroll-marked loops and loops within
``auto_max_step`` are written out or marked, under PassContext options and pragmas; schedules
that unroll build equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from lower.ir.stmt import AttrStmt, Buffer, For, ForKind, Load, SeqStmt, Store
from lower.passes.unroll_loop import unroll_loop
from schedule.base.pass_context import PassContext

BOTH = pytest.mark.parametrize("exact", [False, True])


def _nest(kind=ForKind.UNROLLED):
    """for (i, n, 2) { for (j, 0, 8) [kind] { A[j + 1] = A[i] + 1 } } (TVM's test_unroll_loop)."""
    n = te.size_var("n")
    buf = Buffer("A", "int64", (n,))
    i, j = te.var("i"), te.var("j")
    store = Store(buf, Load(buf, i) + te.const(1, "int64"), j + 1)
    return For(i, n, te.const(2), ForKind.SERIAL, For(j, te.const(0), te.const(8), kind, store))


def _unrolled(stmt, **config):
    with PassContext(config={"tir.UnrollLoop": config}):
        return unroll_loop(stmt)[0]


def test_unroll_loop_by_step_count():
    stmt = _nest()
    assert not isinstance(_unrolled(stmt, auto_max_step=16), For)  # 2 x 8 steps
    out = _unrolled(stmt, auto_max_step=15)
    assert isinstance(out, For) and isinstance(out.body, SeqStmt) and len(out.body.seq) == 8
    marked = _unrolled(stmt, auto_max_step=16, explicit_unroll=False)
    assert isinstance(marked, For) and marked.kind == ForKind.UNROLLED


def test_unroll_pragma_sets_the_step_limit_of_its_body():
    stmt = _nest(ForKind.SERIAL)
    wrapped = SeqStmt((AttrStmt(te.const(0), "pragma_auto_unroll_max_step", te.const(16), stmt), stmt))
    out = _unrolled(wrapped, auto_max_depth=8, explicit_unroll=False)
    assert isinstance(out.seq[0], For) and out.seq[0].kind == ForKind.UNROLLED  # the pragma is gone
    assert isinstance(out.seq[1], For) and out.seq[1].kind != ForKind.UNROLLED


def test_unroll_fake_loop():
    n = te.size_var("n")
    buf = Buffer("A", "int32", (n,))
    i, j = te.var("i"), te.var("j")
    body = SeqStmt((Store(buf, te.const(3), i * 2),
                    For(j, te.const(0), te.const(10), ForKind.SERIAL, Store(buf, Load(buf, i) + 1, j + 1))))
    out = _unrolled(For(i, te.const(0), te.const(1), ForKind.SERIAL, body), auto_max_depth=8, auto_max_extent=1,
                    explicit_unroll=False)
    assert isinstance(out, SeqStmt) and isinstance(out.seq[0], Store)  # the loop of one iteration went


def test_unroll_single_count_loops():
    n = te.size_var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda *i: A(*i), name="B")
    s = te.create_schedule(B.op)
    body = lower(s, [A, B]).body
    assert _unrolled(body, auto_max_step=1) is body  # a loop of symbolic extent stays as it is


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="'tir.UnrollLoop' has no option 'max_step'"):
        PassContext(config={"tir.UnrollLoop": {"max_step": 4}})
    with pytest.raises(ValueError, match="no pass reads 'tir.Unroll'"):
        PassContext(config={"tir.Unroll": {}})


@BOTH
def test_auto_unroll_of_a_small_matmul_tile(exact):
    n = 12
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 4)
    ko, ki = s[C].split(k, factor=4)
    s[C].reorder(xo, yo, ko, ki, xi, yi)
    s[C].pragma(ki, "auto_unroll_max_step", 64)  # 4 x 4 x 4 updates
    text = str(lower(s, [A, B, C], exact=exact))
    assert "for (k.inner," not in text and "for (i.inner," not in text and "for (j.inner," not in text
    assert text.count("C[") == 1 + 4 * 4 * 4 * 2  # the init, and 4 x 4 x 4 updates (a load and a store)
    rng = np.random.default_rng(3)
    a, b = rng.integers(-3, 4, (n, n)).astype("float32"), rng.integers(-3, 4, (n, n)).astype("float32")
    c = np.full((n, n), np.nan, "float32")
    build(s, [A, B, C], exact=exact)(a, b, c)
    np.testing.assert_array_equal(c, a @ b)


@BOTH
def test_a_global_step_limit_unrolls_inner_loops(exact):
    A = te.placeholder((6, 4), name="A")
    B = te.compute((6, 4), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 4}}):
        text = str(lower(s, [A, B], exact=exact))
        f = build(s, [A, B], exact=exact)
    assert "for (i, 0, 6)" in text and "for (j" not in text and text.count("B[") == 4
    a = np.arange(24, dtype="float32").reshape(6, 4)
    out = np.full((6, 4), np.nan, "float32")
    f(a, out)
    np.testing.assert_array_equal(out, a * 2)


def test_unroll_local_access():
    """With unroll_local_access, a loop whose variable indexes local memory is written out
    whatever its step count."""
    L = Buffer("L", "float32", (te.const(4),), "local")
    G = Buffer("G", "float32", (te.const(4),))
    i = te.var("i")
    stmt = For(i, te.const(0), te.const(4), ForKind.SERIAL, Store(G, Load(L, i) + 1.0, i))
    assert isinstance(_unrolled(stmt), For)
    out = _unrolled(stmt, unroll_local_access=True)
    assert isinstance(out, SeqStmt) and len(out.seq) == 4
    glob = For(i, te.const(0), te.const(4), ForKind.SERIAL, Store(G, Load(G, i) + 1.0, i))
    assert isinstance(_unrolled(glob, unroll_local_access=True), For)
