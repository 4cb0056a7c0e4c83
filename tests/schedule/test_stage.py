"""Loop-structure primitives: split, fuse, reorder, tile, annotations; and their refusals."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from schedule.base import packed
from schedule.schedule.relations import Fuse, Singleton, Split

from ..conftest import snapshot


@pytest.fixture
def T():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    return te.compute((n, m), lambda i, j: A[i, j] * 2, name="T")


def test_split_by_factor_replaces_the_leaf_with_outer_and_inner(T):
    s = te.create_schedule(T.op)
    i, j = T.op.axis
    xo, xi = s[T].split(i, factor=8)
    assert (xo.name, xi.name) == ("i.outer", "i.inner")
    assert xo.dom is None and xi.dom is None
    assert s[T].leaf_iter_vars == [xo, xi, j]
    assert s[T].all_iter_vars == [i, j, xo, xi]
    (rel,) = s[T].relations
    assert isinstance(rel, Split) and (rel.parent, rel.outer, rel.inner) == (i, xo, xi)
    assert int(rel.factor) == 8 and rel.nparts is None


def test_split_by_nparts_and_by_a_symbolic_factor(T):
    s = te.create_schedule(T.op)
    f = te.var("f")
    xo, xi = s[T].split(T.op.axis[0], nparts=4)
    yo, yi = s[T].split(T.op.axis[1], factor=f)
    r1, r2 = s[T].relations
    assert int(r1.nparts) == 4 and r1.factor is None
    assert r2.factor is f
    assert s[T].leaf_iter_vars == [xo, xi, yo, yi]


def test_split_of_a_split_names_nested_children(T):
    s = te.create_schedule(T.op)
    _, xi = s[T].split(T.op.axis[0], factor=8)
    xio, xii = s[T].split(xi, factor=2)
    assert (xio.name, xii.name) == ("i.inner.outer", "i.inner.inner")


def test_fuse_adjacent_leaves_names_the_result(T):
    s = te.create_schedule(T.op)
    i, j = T.op.axis
    f = s[T].fuse(i, j)
    assert f.name == "i.j.fused" and s[T].leaf_iter_vars == [f]
    (rel,) = s[T].relations
    assert isinstance(rel, Fuse) and (rel.outer, rel.inner, rel.fused) == (i, j, f)


def test_fuse_after_tile_fuses_the_outer_loops(T):
    s = te.create_schedule(T.op)
    xo, yo, xi, yi = s[T].tile(T.op.axis[0], T.op.axis[1], x_factor=10, y_factor=5)
    fused = s[T].fuse(xo, yo)
    assert fused.name == "i.outer.j.outer.fused"
    assert any(isinstance(r, Fuse) for r in s[T].relations)
    assert tuple(s[T].leaf_iter_vars) == (fused, xi, yi)


def test_fuse_a_split_inner_with_the_next_axis(T):
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=4)
    fused = s[T].fuse(xi, T.op.axis[1])
    assert tuple(s[T].leaf_iter_vars) == (xo, fused)


def test_fuse_of_three_and_of_none():
    A = te.placeholder((2, 3, 4), name="A")
    T = te.compute((2, 3, 4), lambda i, j, k: A[i, j, k], name="T")
    s = te.create_schedule(T.op)
    f = s[T].fuse(*T.op.axis)
    assert f.name == "i.j.fused.k.fused" and len(s[T].relations) == 2
    single = s[T].fuse()
    assert single.name == "singleton" and isinstance(s[T].relations[-1], Singleton)
    assert s[T].leaf_iter_vars == [single, f]
    assert s[T].fuse(f) is f


def test_fusing_data_and_reduce_axes_gives_a_reduce_iter_var(matmul):
    _, _, C = matmul
    s = te.create_schedule(C.op)
    f = s[C].fuse(C.op.axis[1], C.op.reduce_axis[0])
    assert f.iter_type == te.IterVarType.CommReduce


def test_reorder_permutes_the_given_leaves_in_their_slots(T):
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=4)
    yo, yi = s[T].split(T.op.axis[1], factor=4)
    s[T].reorder(yi, xi)
    assert s[T].leaf_iter_vars == [xo, yi, yo, xi]


def test_tile_returns_outer_then_inner(T):
    s = te.create_schedule(T.op)
    xo, yo, xi, yi = s[T].tile(T.op.axis[0], T.op.axis[1], 8, 8)
    assert [iv.name for iv in (xo, yo, xi, yi)] == ["i.outer", "j.outer", "i.inner", "j.inner"]
    assert s[T].leaf_iter_vars == [xo, yo, xi, yi]


def test_annotations_set_the_loop_kind(T):
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    yo, yi = s[T].split(T.op.axis[1], factor=5)
    s[T].unroll(xi)
    s[T].vectorize(yi)
    s[T].parallel(xo)
    assert s[T].iter_var_attrs[xi].iter_type == te.IterVarType.Unrolled
    assert s[T].iter_var_attrs[yi].iter_type == te.IterVarType.Vectorized
    assert s[T].iter_var_attrs[xo].iter_type == te.IterVarType.Parallelized
    s[T].pragma(yo, "vectorize")
    assert s[T].iter_var_attrs[yo].iter_type == te.IterVarType.Vectorized
    s[T].pragma(yo, "pragma1", 3)
    assert s[T].iter_var_attrs[yo].pragma_keys == ("pragma1",)


def test_bind_records_the_thread(T):
    s = te.create_schedule(T.op)
    bx = te.thread_axis("blockIdx.x")
    assert bx.iter_type == te.IterVarType.ThreadIndex and bx.name == "blockIdx.x"
    xo, _ = s[T].split(T.op.axis[0], factor=32)
    s[T].bind(xo, bx)
    assert s[T].bound_thread(xo) is bx


def test_set_scope():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    C = te.compute((4,), lambda i: B[i] + 1, name="C")
    s = te.create_schedule(C.op)
    s[B].set_scope("shared")
    assert s[B].scope == "shared"


# --------------------------------------------------------------------------- refusals

def _refused(s, call, match):
    before = snapshot(s)
    with pytest.raises(te.ScheduleError, match=match):
        call()
    assert snapshot(s) == before


@pytest.mark.parametrize(("kwargs", "match"), [
    ({}, "needs exactly one of factor= and nparts="),
    ({"factor": 4, "nparts": 2}, "needs exactly one of factor= and nparts="),
    ({"factor": 0}, "cannot be split with factor=0"),
    ({"nparts": -2}, "cannot be split with nparts=-2"),
    ({"factor": 2.5}, "factor=2.5 is not a positive integer"),
    ({"factor": True}, "factor=True is not a positive integer"),
    ({"factor": te.var("f", "float32")}, "is float32, not a positive integer"),
])
def test_split_refuses_bad_factors(T, kwargs, match):
    s = te.create_schedule(T.op)
    _refused(s, lambda: s[T].split(T.op.axis[0], **kwargs), rf"split: stage 'T', IterVar 'i'.*{match}")


def test_split_refuses_an_already_split_itervar_differently_from_a_foreign_one(T):
    s = te.create_schedule(T.op)
    s[T].split(T.op.axis[0], factor=4)
    _refused(s, lambda: s[T].split(T.op.axis[0], factor=2),
             r"split: stage 'T', IterVar 'i' was already split; use one of its leaves")
    other = te.compute((4,), lambda q: q, name="O")
    _refused(s, lambda: s[T].split(other.op.axis[0], factor=2),
             r"split: stage 'T', IterVar 'q' does not belong to this stage")
    _refused(s, lambda: s[T].split("i", factor=2), "expected an IterVar")


def test_operations_on_fused_itervars_say_so(T):
    s = te.create_schedule(T.op)
    f = s[T].fuse(*T.op.axis)
    _refused(s, lambda: s[T].reorder(T.op.axis[1]), rf"IterVar 'j' was already fused into '{f.name}'")


def test_fuse_refuses_misordered_or_non_adjacent_leaves(T):
    s = te.create_schedule(T.op)
    i, j = T.op.axis
    _refused(s, lambda: s[T].fuse(j, i), r"fuse: stage 'T', IterVar 'i' is given after 'j'")
    xo, xi = s[T].split(i, factor=4)
    _refused(s, lambda: s[T].fuse(xo, j), r"fuse: stage 'T', IterVar 'j' is not next to 'i.outer'")
    _refused(s, lambda: s[T].fuse(xo, xi, xo), r"is given after")


def test_fuse_refuses_a_thread_axis(T):
    s = te.create_schedule(T.op)
    _refused(s, lambda: s[T].fuse(T.op.axis[0], te.thread_axis("threadIdx.x")), "does not belong")


def test_reorder_refuses_duplicates_and_non_leaves(T):
    s = te.create_schedule(T.op)
    i, j = T.op.axis
    _refused(s, lambda: s[T].reorder(j, j), r"reorder: stage 'T', IterVar 'j' appears more than once")
    s[T].split(i, factor=4)
    _refused(s, lambda: s[T].reorder(j, i), r"reorder: stage 'T', IterVar 'i' was already split")


def test_tile_refuses_the_same_axis_twice_and_bad_factors(T):
    s = te.create_schedule(T.op)
    i, j = T.op.axis
    _refused(s, lambda: s[T].tile(i, i, 4, 4), "given as both x_parent and y_parent")
    _refused(s, lambda: s[T].tile(i, j, 4, 0), r"IterVar 'j' cannot be split with factor=0")


def test_bind_refuses_a_non_thread_itervar(T):
    s = te.create_schedule(T.op)
    i, j = T.op.axis
    _refused(s, lambda: s[T].bind(i, j), r"bind: stage 'T', IterVar 'i' cannot be bound to 'j', which is "
                                         "not a thread axis")
    _refused(s, lambda: s[T].bind(i, 3), "which is not a thread axis")


def test_vectorize_and_parallel_refuse_reduction_axes(matmul):
    _, _, C = matmul
    s = te.create_schedule(C.op)
    k = C.op.reduce_axis[0]
    _refused(s, lambda: s[C].vectorize(k), r"vectorize: stage 'C', IterVar 'k' is CommReduce")
    _refused(s, lambda: s[C].parallel(k), r"parallel: stage 'C', IterVar 'k' is a reduction axis")


def test_set_scope_refuses_unknown_scopes(T):
    s = te.create_schedule(T.op)
    _refused(s, lambda: s[T].set_scope("sram"),
             r"set_scope: stage 'T' unknown storage scope 'sram'; the known scopes are 'global'")
    _refused(s, lambda: s[T].set_scope("local.acc"), r"unknown storage scope 'local.acc'")


@pytest.mark.parametrize("scope", ["texture", "global.texture", "shared.dyn", "local.acc", "wmma.matrix_a",
                                   "wmma.accumulator", "warp"])
def test_set_scope_takes_any_scope_tvm_takes(T, scope, monkeypatch):
    # A tag TVM does not know (local.acc) needs its memory described, as TVM's lowering asks.
    monkeypatch.setattr(packed, "_FUNCS", dict(packed._FUNCS))
    te.register_func("tvm.info.mem.local.acc", lambda: te.MemoryInfo(32, 128, 1 << 20), override=True)
    s = te.create_schedule(T.op)
    s[T].set_scope(scope)
    assert s[T].scope == scope


def test_a_pragma_takes_text_and_refuses_other_values_unchanged():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    s[B].pragma(B.op.axis[0], "note", "hello")
    assert 'pragma_note = "hello"' in str(lower(s, [A, B]))
    before = snapshot(s)
    with pytest.raises(te.ScheduleError, match="a number, an expression or text, not list"):
        s[B].pragma(B.op.axis[0], "other", [1, 2])
    assert snapshot(s) == before
    out = np.full(8, np.nan, "float32")
    build(s, [A, B])(np.arange(8, dtype="float32"), out)
    np.testing.assert_array_equal(out, np.arange(8) + 1)
