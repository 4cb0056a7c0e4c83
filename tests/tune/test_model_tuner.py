"""The model-based tuner and the schedule features it learns from: features checked against
counts derived by hand; on a synthetic space of 3025 configurations with one optimum (costs
computed from the inferred loop extents, no timing noise), XGBTuner finds the optimum where a
random search of the same budget does not."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import schedule as te
from bound import infer_bound
from tune import JobResult, autotvm
from tune.features import LENGTH, schedule_features

from . import templates

pytest.importorskip("xgboost")


def _log(x):
    return math.log2(1 + x)


def test_schedule_features_count_what_the_loops_touch():
    n = 64
    A, B, C = templates.matmul(n)
    s = te.create_schedule(C.op)
    i, j = s[C].op.axis
    jo, ji = s[C].split(j, factor=16)
    s[C].reorder(i, jo, s[C].op.reduce_axis[0], ji)
    s[C].vectorize(ji)
    f = schedule_features(s, [A, B, C], exact_counts=True)
    assert len(f) == LENGTH
    cheap = schedule_features(s, [A, B, C])
    # without explain: C's 4096 elements stored 4096 times by the initialization and 64 * 4096
    # times by the update (65 stores per element, the ratio capped at 64)
    np.testing.assert_allclose(cheap[36:39], [_log(4096), _log(4096 + 64 * 4096), 64.0])
    np.testing.assert_allclose(np.delete(cheap, [37, 38]), np.delete(f, [37, 38]))
    # innermost ji (16, vectorized): a row of 16 of C (loaded and stored at one index), one of A,
    # a row of 16 of B: 64 + 4 + 64 bytes; 64 of them stored
    np.testing.assert_allclose(f[0:6], [_log(16), 0, 1, 0, _log(132), _log(64)])
    # k (64): C's row, A's 64, B's 64 x 16
    np.testing.assert_allclose(f[6:12], [_log(64), 0, 0, 0, _log(64 + 256 + 4096), _log(64)])
    # jo (4): C's 64 twice (the update and the initialization), A's 64, all of B
    np.testing.assert_allclose(f[12:18], [_log(4), 0, 0, 0, _log(256 + 256 + 256 + 16384), _log(512)])
    # explain: C allocates and computes its 4096 elements once each; no allocation; 64 * 4 * 64 * 16
    # iterations of the heaviest statement; one stage
    np.testing.assert_allclose(f[36:39], [_log(4096), _log(4096), 1.0])
    np.testing.assert_allclose(f[-5:], [0, 0, 0, _log(64 * 4 * 64 * 16), 1])


@autotvm.template("test_model/matmul3")
def matmul3(n):
    A, B, C = templates.matmul(n)
    s = te.create_schedule(C.op)
    y, x = s[C].op.axis
    cfg = autotvm.get_config()
    cfg.define_split("tile_y", y, num_outputs=3)
    cfg.define_split("tile_x", x, num_outputs=3)
    y0, y1, y2 = cfg["tile_y"].apply(s, C, y)
    x0, x1, x2 = cfg["tile_x"].apply(s, C, x)
    s[C].reorder(y0, x0, y1, x1, s[C].op.reduce_axis[0], y2, x2)
    return s, [A, B, C]


#: The synthetic optimum: log2 of these loops' extents.
TARGET = {"i.inner.inner": 3, "j.inner.inner": 5, "i.inner.outer": 2, "j.inner.outer": 1}


def synthetic_cost(payload: bytes) -> float:
    """Seconds that grow with the squared distance of the inner tiles from TARGET (1 ms at it)."""
    s, _ = pickle.loads(payload)
    extents = {iv.var.name: int(r.extent.value) for iv, r in infer_bound(s).items() if iv.var.name in TARGET}
    return 1e-3 * (1 + sum((math.log2(extents[k]) - v) ** 2 for k, v in TARGET.items()))


class SyntheticExecutor:
    """An executor (the interface a Dask cluster also offers) that compiles nothing and
    'measures' synthetic_cost, in this process."""

    size = 4

    def run(self, fn, jobs, timeout):
        if fn.__name__ == "build_job":
            return [JobResult("ok", 0.0, 0.0) for _ in jobs]
        return [JobResult("ok", {"costs": [synthetic_cost(job[0])], "wrong": None}, 0.0) for job in jobs]


def _synthetic_option():
    return autotvm.measure_option(builder=autotvm.LocalBuilder(executor=SyntheticExecutor()),
                                  runner=autotvm.LocalRunner(executor=SyntheticExecutor()))


def _best(tuner_class, seed, n_trial=80, **kwargs):
    task = autotvm.task.create("test_model/matmul3", args=(512,))
    tuner = tuner_class(task, seed=seed, **kwargs)
    tuner.tune(n_trial=n_trial, measure_option=_synthetic_option())
    assert tuner.trials == n_trial and len(tuner.visited) == n_trial  # no configuration twice
    return tuner.best_cost


def test_the_synthetic_space_has_one_optimum():
    task = autotvm.task.create("test_model/matmul3", args=(512,))
    assert len(task.config_space) == 55 * 55
    s, args = task.instantiate(task.config_space.get(2284))
    assert str(task.config_space.get(2284)) == "[('tile_y', [-1, 4, 8]), ('tile_x', [-1, 2, 32])],None,2284"
    assert synthetic_cost(pickle.dumps((s, args))) == pytest.approx(1e-3)


def test_the_model_finds_the_optimum_that_random_search_misses():
    seeds = (2, 3, 4, 5)
    model = [_best(autotvm.tuner.XGBTuner, seed, feature_type="knob") for seed in seeds]
    random = [_best(autotvm.tuner.RandomTuner, seed) for seed in seeds]
    assert sum(c == pytest.approx(1e-3) for c in model) >= 3
    assert not any(c == pytest.approx(1e-3) for c in random)
    assert np.mean(model) < np.mean(random)


def test_schedule_features_learn_too():
    """Features of each configuration's schedule (a lowering and an explain each)."""
    assert [_best(autotvm.tuner.XGBTuner, seed) for seed in (4, 5)] == [pytest.approx(1e-3)] * 2


def test_the_rank_loss_learns_too():
    assert _best(autotvm.tuner.XGBTuner, 5, n_trial=60, feature_type="knob", loss_type="rank") <= 2e-3


@pytest.mark.parametrize("kwargs, match", [({"feature_type": "loops"}, "feature_type"), ({"loss_type": "mse"}, "loss_type"),
                                           ({"plan_size": 0}, "plan_size"), ({"epsilon": 2}, "epsilon")])
def test_bad_tuner_options_are_refused(kwargs, match):
    task = autotvm.task.create("test_model/matmul3", args=(64,))
    with pytest.raises(ValueError, match=match):
        autotvm.tuner.XGBTuner(task, **kwargs)
