"""The layout rewrite of a loop state: a layout-free input laid out in the order of its
reader's tiled loops. Shapes are checked against the loops by hand; the pre-transformed input
is made by NumPy (a reshape and a transpose) and every build is compared with NumPy's matmul,
including tiles that overhang the input and a reduction computed inside its consumer's tile."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build
from tune.auto_scheduler.compute_dag import ComputeDAG
from tune.auto_scheduler.layout_rewrite import INSERT_TRANSFORM_STAGE, REWRITE_FOR_PRE_TRANSFORMED, new_layout
from tune.auto_scheduler.loop_state import replay_on_state
from tune.auto_scheduler.steps import Step

RNG = np.random.default_rng(5)


def _matmul(n, m, k, free=True):
    A, B = te.placeholder((n, k), name="A"), te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="k")
    attrs = {"layout_free_placeholders": [B]} if free else None
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C", attrs=attrs)
    return ComputeDAG([A, B, C])


def _tiled(dag, i_lengths, j_lengths, k_lengths):
    """SSRSRS: i0 j0 i1 j1 k0 i2 j2 k1 i3 j3."""
    s = dag.get_init_state()
    C = s.stage_ops[2]
    i = s.split(C, s[C].iters[0], i_lengths)
    j = s.split(C, s[C].iters[len(i)], j_lengths)
    k = s.split(C, s[C].iters[len(i) + len(j)], k_lengths)
    s.reorder(C, [i[0], j[0], i[1], j[1], k[0], i[2], j[2], k[1], i[3], j[3]])
    return s


def _run(dag, state, option, a, b):
    """The schedule, arguments and output of *state* built with *option* and run on *a*, *b*."""
    sch, args = dag.apply_steps_from_state(state, layout_rewrite=option)
    out = np.full((a.shape[0], b.shape[1]), np.nan, "float32")
    build(sch, args)(a, b, out)
    return sch, args, out


def test_the_pre_transformed_input_takes_the_shape_of_the_loops_over_it():
    dag = _matmul(32, 32, 16)
    state = _tiled(dag, [2, 4, 2], [2, 2, 4], [4])  # j: 2 2 2 4, k: 4 4
    sch, args = dag.apply_steps_from_state(state, layout_rewrite=REWRITE_FOR_PRE_TRANSFORMED)
    # the loops over B's axes, in order: j0 j1 k0 j2 k1 j3
    assert [int(d.value) for d in args[1].shape] == [2, 2, 4, 2, 4, 4]
    a = RNG.standard_normal((32, 16)).astype("float32")
    b = RNG.standard_normal((16, 32)).astype("float32")
    packed = b.reshape(4, 4, 2, 2, 2, 4).transpose(2, 3, 0, 4, 1, 5).copy()
    out = np.full((32, 32), np.nan, "float32")
    build(sch, args)(a, packed, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_an_inserted_transform_stage_keeps_the_arguments_and_the_result():
    dag = _matmul(32, 32, 16)
    state = _tiled(dag, [2, 4, 2], [2, 2, 4], [4])
    sch, args = dag.apply_steps_from_state(state, layout_rewrite=INSERT_TRANSFORM_STAGE)
    assert [int(d.value) for d in args[1].shape] == [16, 32]
    names = [st.op.name for st in sch.stages]
    assert "auto_scheduler_layout_transform" in names
    a = RNG.standard_normal((32, 16)).astype("float32")
    b = RNG.standard_normal((16, 32)).astype("float32")
    out = np.full((32, 32), np.nan, "float32")
    build(sch, args)(a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_tiles_that_overhang_the_input_read_zeros_past_its_end():
    dag = _matmul(10, 12, 9)
    state = _tiled(dag, [1, 3, 2], [1, 5, 2], [4])  # j: 12 -> 2 x 10 lanes, k: 9 -> 3 x 4
    _, args, out = _run(dag, state, INSERT_TRANSFORM_STAGE,
                        a := RNG.standard_normal((10, 9)).astype("float32"),
                        b := RNG.standard_normal((9, 12)).astype("float32"))
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_a_reduction_computed_in_its_consumers_tile_lays_out_by_the_outer_loops_too():
    A, B = te.placeholder((32, 16), name="A"), te.placeholder((16, 32), name="B")
    r = te.reduce_axis((0, 16), name="k")
    C = te.compute((32, 32), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C",
                   attrs={"layout_free_placeholders": [B]})
    D = te.compute((32, 32), lambda i, j: C[i, j] + 1.0, name="D")
    dag = ComputeDAG([A, B, D])
    s = dag.get_init_state()
    c, d = s.stage_ops[2], s.stage_ops[3]
    i = s.split(c, s[c].iters[0], [4])
    j = s.split(c, s[c].iters[2], [8])
    s.reorder(c, [i[0], j[0], s[c].iters[4], i[1], j[1]])
    di = s.split(d, s[d].iters[0], [4])
    dj = s.split(d, s[d].iters[2], [8])
    s.reorder(d, [di[0], dj[0], di[1], dj[1]])
    s.compute_at(c, d, s[d].iters[1])
    inferred = dag.infer_bound_from_state(s)
    dims = ["k", "j"]
    # D's j.0 (4) stands for C's own outer j loop; then C's loops: j.0 (one iteration inside D's
    # tile, kept as TVM keeps it), k (16) and j.1 (8)
    assert new_layout(inferred, 2, dims) == [(1, 4), (1, 1), (0, 16), (1, 8)]
    a = RNG.standard_normal((32, 16)).astype("float32")
    b = RNG.standard_normal((16, 32)).astype("float32")
    for option in (INSERT_TRANSFORM_STAGE, REWRITE_FOR_PRE_TRANSFORMED):
        sch, args = dag.apply_steps_from_state(s, layout_rewrite=option)
        given = b if option == INSERT_TRANSFORM_STAGE else b.reshape(16, 4, 1, 8).transpose(1, 2, 0, 3).copy()
        out = np.full((32, 32), np.nan, "float32")
        build(sch, args)(a, given, out)
        np.testing.assert_allclose(out, a @ b + 1.0, rtol=1e-4, atol=1e-4)


def test_no_layout_free_input_or_no_steps_rewrites_nothing():
    a = RNG.standard_normal((8, 8)).astype("float32")
    b = RNG.standard_normal((8, 8)).astype("float32")
    dag = _matmul(8, 8, 8, free=False)
    state = _tiled(dag, [2, 2, 1], [2, 2, 1], [2])
    free = _matmul(8, 8, 8)
    for one, s in ((dag, state), (free, free.get_init_state())):
        _, args, out = _run(one, s, REWRITE_FOR_PRE_TRANSFORMED, a, b)
        assert args[1] is one.tensors[1]
        np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("bad", [3, -1, True, "insert"])
def test_a_bad_option_is_refused(bad):
    dag = _matmul(8, 8, 8)
    with pytest.raises(ValueError, match="LayoutRewriteOption"):
        dag.apply_steps_from_state(dag.get_init_state(), layout_rewrite=bad)


def test_loops_fused_after_the_reduction_moved_into_its_consumer_keep_their_extents():
    A, B = te.placeholder((32, 16), name="A"), te.placeholder((16, 32), name="B")
    r = te.reduce_axis((0, 16), name="k")
    C = te.compute((32, 32), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C",
                   attrs={"layout_free_placeholders": [B]})
    D = te.compute((32, 32), lambda i, j: te.max(C[i, j], 0.0), name="D")
    dag = ComputeDAG([A, B, D])
    records = [["SP", 2, 0, 32, [1, 2, 16], 1], ["SP", 2, 4, 32, [8, 2, 2], 1], ["SP", 2, 8, 16, [2], 1],
               ["RE", 2, [0, 4, 1, 5, 8, 2, 6, 9, 3, 7]], ["FSP", 3, 0, 0, 1], ["FSP", 3, 2, 1, 1],
               ["RE", 3, [0, 2, 1, 3]], ["CA", 2, 3, 1], ["FU", 2, [0, 1, 2, 3]], ["AN", 2, 0, 3]]
    state = replay_on_state(dag.get_init_state(), [Step.from_record(r) for r in records])
    # C's fused outer loops (i.0 j.0 i.1 j.1) lost their ranges when C moved into D; bound
    # inference gives them back, so j.1 keeps its 8 iterations (32 over the inner 2 x 2)
    fused = dag.infer_bound_from_state(state).stages[2].iters[0]
    assert [int(o.range.extent.value) for o in fused.orig_iters] == [1, 1, 1, 8]
    a = RNG.standard_normal((32, 16)).astype("float32")
    b = RNG.standard_normal((16, 32)).astype("float32")
    sch, args = dag.apply_steps_from_state(state, layout_rewrite=INSERT_TRANSFORM_STAGE)
    out = np.full((32, 32), np.nan, "float32")
    build(sch, args)(a, b, out)
    np.testing.assert_allclose(out, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


def test_an_input_of_symbolic_shape_keeps_its_layout():
    n = te.var("n")
    A, B = te.placeholder((n, 8), name="A"), te.placeholder((8, n), name="B")
    r = te.reduce_axis((0, 8), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C",
                   attrs={"layout_free_placeholders": [B]})
    dag = ComputeDAG([A, B, C])
    s = dag.get_init_state()
    c = s.stage_ops[2]
    s.split(c, s[c].iters[1], [4])
    for option in (INSERT_TRANSFORM_STAGE, REWRITE_FOR_PRE_TRANSFORMED):
        sch, args = dag.apply_steps_from_state(s, layout_rewrite=option)
        assert args[1] is B
        a, b = RNG.standard_normal((6, 8)).astype("float32"), RNG.standard_normal((8, 6)).astype("float32")
        out = np.full((6, 6), np.nan, "float32")
        build(sch, args)(a, b, out)
        np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)
