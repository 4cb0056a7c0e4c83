"""Sketches as TVM's CPU rules derive them: counted and checked by hand for a matrix product
(tiled, or with a cache written and its consumer fused at two levels), a product with a
short output and a long reduction (two rfactor sketches first), an epilogue fused into a
convolution, an elementwise stage inlined, a costly one and a padding kept; each sketch,
its open lengths filled, computes what NumPy does."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from tune.auto_scheduler.compute_dag import ComputeDAG
from tune.auto_scheduler.loop_state import INLINED, ITER, ROOT, replay_on_state
from tune.auto_scheduler.search_task import HardwareParams, PreloadCustomSketchRule, SearchTask, SketchPolicy
from tune.auto_scheduler.sketch_rules import needs_multi_level_tiling, strictly_inlinable
from tune.auto_scheduler.steps import Step

RNG = np.random.default_rng(13)


def _sketches(tensors, callbacks=None):
    task = SearchTask(compute_dag=ComputeDAG(tensors), workload_key=f"sketch-test-{id(tensors)}", target="llvm",
                      hardware_params=HardwareParams(num_cores=4))
    return task.compute_dag, SketchPolicy(task, init_search_callbacks=callbacks).generate_sketches()


def _matmul(n, m, k):
    A, B = te.placeholder((n, k), name="A"), te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="k")
    return A, B, te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")


def _filled(dag, sketch):
    """The sketch with every open split length 1, replayed on the DAG."""
    steps = [Step(s.kind, (*s.fields[:3], tuple(1 if x is None else x for x in s.fields[3]), *s.fields[4:]))
             if s.kind == "SP" else s for s in sketch.transform_steps]
    return replay_on_state(dag.get_init_state(), steps)


def _kinds(sketch):
    return [s.kind for s in sketch.transform_steps]


def test_matrix_product_sketches():
    A, B, C = _matmul(64, 64, 64)
    dag, sketches = _sketches([A, B, C])
    # tiled; cached and its copy fused after one spatial level; after two
    assert len(sketches) == 3
    assert _kinds(sketches[0]) == ["SP", "SP", "SP", "RE"]  # i and j in 4 levels, k in 2: S S R S R S
    assert [it.name for it in sketches[0].stages[2].iters] == ["i.0", "j.0", "i.1", "j.1", "k.0", "i.2", "j.2",
                                                               "k.1", "i.3", "j.3"]
    for sketch, level in ((sketches[1], 1), (sketches[2], 2)):
        assert [op.name for op in sketch.stage_ops] == ["A", "B", "C.local", "C"]
        assert sketch.stages[2].compute_at == ITER and sketch.stages[3].compute_at == ROOT
        # the copy split as the cache's first levels, the cache computed at its last outer loop
        assert len(sketch.stages[3].iters) == 2 * (level + 1)
        assert _kinds(sketch)[-1] == "CA" and sketch.transform_steps[-1].fields[2] == 2 * level - 1
    a, b = RNG.standard_normal((64, 64)).astype("float32"), RNG.standard_normal((64, 64)).astype("float32")
    for sketch in sketches:
        sch, args = dag.apply_steps_from_state(_filled(dag, sketch))
        out = np.full((64, 64), np.nan, "float32")
        build(sch, args)(a, b, out)
        np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_a_long_reduction_is_factored_first():
    A, B, C = _matmul(8, 8, 512)  # 64 outputs, no more than 16 per core: too little to share
    dag, sketches = _sketches([A, B, C])
    assert len(sketches) == 5
    for sketch in sketches[:2]:
        assert _kinds(sketch) == ["SP", "RF"] + (["RE"] if sketch is sketches[1] else [])
        assert sketch.transform_steps[0].fields[3] == (None,)  # the factor is the search's to pick
        assert [op.name for op in sketch.stage_ops] == ["A", "B", "C.rf", "C.repl"]
    a, b = RNG.standard_normal((8, 512)).astype("float32"), RNG.standard_normal((512, 8)).astype("float32")
    for sketch in sketches[:2]:
        sch, args = dag.apply_steps_from_state(_filled(dag, sketch))
        out = np.full((8, 8), np.nan, "float32")
        build(sch, args)(a, b, out)
        np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_an_epilogue_is_fused_and_elementwise_stages_inlined():
    A, B, C = _matmul(32, 32, 32)
    D = te.compute((32, 32), lambda i, j: C[i, j] * 2.0, name="D")
    E = topi.nn.relu(D)
    dag, sketches = _sketches([A, B, E])
    # E: kept (an output); D: inlined (elementwise); C: fused into E at two levels, or tiled alone
    assert len(sketches) == 3
    for sketch in sketches:
        assert sketch[D].compute_at == INLINED
    assert [sketches[k][C].compute_at for k in range(3)] == [ITER, ITER, ROOT]
    a, b = RNG.standard_normal((32, 32)).astype("float32"), RNG.standard_normal((32, 32)).astype("float32")
    for sketch in sketches:
        sch, args = dag.apply_steps_from_state(_filled(dag, sketch))
        out = np.full((32, 32), np.nan, "float32")
        build(sch, args)(a, b, out)
        np.testing.assert_allclose(out, np.maximum((a @ b) * 2, 0), rtol=1e-4, atol=1e-4)


def test_what_the_analysis_inlines_and_tiles():
    X = te.placeholder((8, 8), name="X")
    shifted = te.compute((8, 8), lambda i, j: X[i, j + 0] + X[i, 3], name="S")
    costly = te.compute((8, 8), lambda i, j: te.exp(X[i, j]), name="E")
    padded = topi.nn.pad(X, [1, 1])
    transposed = te.compute((8, 8), lambda i, j: X[j, i] * 2.0, name="T")
    assert strictly_inlinable(shifted.op) and strictly_inlinable(transposed.op)
    assert not strictly_inlinable(costly.op) and not strictly_inlinable(padded.op)
    r = te.reduce_axis((0, 8), name="r")
    rows = te.compute((8,), lambda i: te.sum(X[i, r], axis=r), name="R")
    assert not needs_multi_level_tiling(rows.op) and needs_multi_level_tiling(_matmul(4, 4, 4)[2].op)


def test_a_custom_rule_comes_first():
    A, B, C = _matmul(64, 64, 64)

    def condition(policy, state, stage_id):
        return PreloadCustomSketchRule.APPLY_AND_SKIP_REST

    def apply(policy, state, stage_id):
        split = state.copy()
        split.split(2, split.stages[2].iters[0], [4])
        return [[state, -1], [split, -1]]
    _, sketches = _sketches([A, B, C], [PreloadCustomSketchRule(condition, apply)])
    assert len(sketches) == 2 and _kinds(sketches[0]) == [] and _kinds(sketches[1]) == ["SP"]
    assert [int(it.range.extent) for it in sketches[1].stages[2].iters] == [16, 4, 64, 64]
    with pytest.raises(ValueError, match="APPLY_AND_SKIP_REST"):
        _sketches([A, B, C], [PreloadCustomSketchRule(lambda *a: 7, apply)])
