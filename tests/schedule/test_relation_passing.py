"""Message passing over relations, checked by enumerating the loop nests it describes."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import schedule as te
from schedule.ir.evaluate import evaluate
from schedule.schedule.relation_passing import (
    pass_down_domain,
    pass_down_index,
    pass_up_bound_check,
    pass_up_index,
)


@st.composite
def scheduled_stage(draw):
    """A 2-D or 3-D compute with a random sequence of split / fuse / reorder on its leaves."""
    shape = draw(st.lists(st.integers(1, 7), min_size=2, max_size=3))
    A = te.placeholder(tuple(shape), name="A")
    T = te.compute(tuple(shape), lambda *idx: A[idx], name="T")
    s = te.create_schedule(T.op)
    stage = s[T]
    for _ in range(draw(st.integers(0, 5))):
        leaves = stage.leaf_iter_vars
        kind = draw(st.sampled_from(["split", "nparts", "fuse", "reorder"]))
        if kind in ("split", "nparts"):
            iv = draw(st.sampled_from(leaves))
            amount = draw(st.integers(1, 5))
            stage.split(iv, **({"factor": amount} if kind == "split" else {"nparts": amount}))
        elif kind == "fuse" and len(leaves) >= 2:
            k = draw(st.integers(0, len(leaves) - 2))
            stage.fuse(leaves[k], leaves[k + 1])
        elif kind == "reorder":
            stage.reorder(*draw(st.permutations(leaves)))
    return T, stage, tuple(shape)


@settings(max_examples=150, deadline=None)
@given(scheduled_stage(), st.booleans())
def test_guarded_loop_nest_visits_every_root_point_exactly_once(case, tighten):
    T, stage, shape = case
    dom = {iv: iv.dom for iv in T.op.axis}
    pass_down_domain(stage, dom, tighten_split=tighten)
    flags = pass_up_bound_check(stage, dom)
    leaves = stage.leaf_iter_vars
    extents = [int(dom[iv].extent) for iv in leaves]
    values = {iv: iv.var for iv in leaves}
    pass_up_index(stage, dom, values)
    guards = [values[iv] - dom[iv].min < dom[iv].extent for iv in stage.all_iter_vars if flags.get(iv)]
    visited = Counter()
    for point in itertools.product(*(range(e) for e in extents)):
        env = {iv.var: p for iv, p in zip(leaves, point)}
        if all(evaluate(g, env) for g in guards):
            visited[tuple(evaluate(values[ax], env) for ax in T.op.axis)] += 1
    assert visited == Counter(itertools.product(*(range(n) for n in shape)))


@settings(max_examples=100, deadline=None)
@given(scheduled_stage())
def test_pass_down_index_inverts_pass_up_index(case):
    T, stage, shape = case
    dom = {iv: iv.dom for iv in T.op.axis}
    pass_down_domain(stage, dom, tighten_split=False)
    down = {ax: ax.var for ax in T.op.axis}
    pass_down_index(stage, dom, down)
    up = {iv: down[iv] for iv in stage.leaf_iter_vars}
    pass_up_index(stage, dom, up)
    for point in itertools.product(*(range(n) for n in shape)):
        env = {ax.var: p for ax, p in zip(T.op.axis, point)}
        assert tuple(evaluate(up[ax], env) for ax in T.op.axis) == point


def test_split_extents_faithful_and_tightened():
    A = te.placeholder((8,), name="A")
    T = te.compute((8,), lambda i: A[i], name="T")
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], nparts=32)
    loose = {T.op.axis[0]: T.op.axis[0].dom}
    pass_down_domain(s[T], loose, tighten_split=False)
    tight = {T.op.axis[0]: T.op.axis[0].dom}
    pass_down_domain(s[T], tight, tighten_split=True)
    assert (int(loose[xo].extent), int(loose[xi].extent)) == (32, 1)
    assert (int(tight[xo].extent), int(tight[xi].extent)) == (8, 1)


def test_symbolic_split_uses_a_ceiling_division():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    T = te.compute((n,), lambda i: A[i], name="T")
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=8)
    dom = {T.op.axis[0]: T.op.axis[0].dom}
    pass_down_domain(s[T], dom)
    assert str(dom[xo].extent) == "floordiv((n + 7), 8)" and int(dom[xi].extent) == 8
    assert pass_up_bound_check(s[T], dom)[T.op.axis[0]]
