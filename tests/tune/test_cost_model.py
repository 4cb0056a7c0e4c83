"""The XGBoost cost model under each of TVM's feature and loss types: on trials whose cost is a
known function of the configuration, every combination ranks held-out configurations as the
costs do (rank-binary: tells those within half the best speed from the rest); "curve" features have one length for every template; a base model lifts an upper model
that has seen few trials."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.testing import get_sample_task
from tune.features import LENGTH

pytest.importorskip("xgboost")
from tune.autotvm.tuner.xgboost_cost_model import XGBoostCostModel  # noqa: E402


def _cost(config) -> float:
    """A cost, in seconds, of the loops the configuration makes: it falls with the innermost
    loop's extent and rises with the row tile's (the sample template leaves the columns whole,
    an inner loop of 128, when the column tile is 1)."""
    inner = config["tile_x"].size[-1] if config["tile_x"].size[-1] > 1 else 128
    return 1e-3 * (1 + np.log2(config["tile_y"].size[-1])) / (1 + np.log2(inner))


def _records(task, indices):
    space = task.config_space
    return [(MeasureInput("llvm", task, space.get(i)), MeasureResult((_cost(space.get(i)),), 0, 0.0, time.time()))
            for i in indices]


def _spearman(a, b) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


@pytest.mark.parametrize("feature_type", ["itervar", "knob", "curve"])
@pytest.mark.parametrize("loss_type", ["reg", "rank", "rank-binary"])
def test_every_feature_and_loss_type_ranks_as_the_costs_do(feature_type, loss_type):
    task, _ = get_sample_task()
    model = XGBoostCostModel(task, feature_type=feature_type, loss_type=loss_type)
    order = np.random.default_rng(0).permutation(64).tolist()
    train, held_out = sorted(order[:32]), sorted(order[32:])
    records = _records(task, train)
    model.fit([inp.config.index for inp, _ in records], [task.flop / res.mean for _, res in records], plan_size=16)
    speeds = [1 / _cost(task.config_space.get(i)) for i in held_out]
    scores = model.predict(held_out)
    if loss_type != "rank-binary":
        assert _spearman(scores, speeds) > 0.8
        return
    # rank-binary learns which configurations reach half the best speed: they score above the rest
    best = max(1 / _cost(task.config_space.get(i)) for i in range(64))
    fast = [sc for sc, sp in zip(scores, speeds) if sp >= best / 2]
    slow = [sc for sc, sp in zip(scores, speeds) if sp < best / 2]
    assert len(fast) >= 3
    assert np.mean([(f > w) + 0.5 * (f == w) for f in fast for w in slow]) > 0.85


def test_curve_features_have_one_length_for_every_template():
    small, _ = get_sample_task(16)
    large, _ = get_sample_task(128)
    lengths = {len(XGBoostCostModel(t, feature_type="curve").feature(t, i))
               for t in (small, large) for i in range(len(t.config_space))}
    assert lengths == {LENGTH + 1}
    itervar = XGBoostCostModel(large, feature_type="itervar").feature(large, 0)
    assert len(itervar) > LENGTH + 1  # the knobs' values come first


def test_update_learns_from_trials_and_a_base_model_adds_to_a_new_one():
    task, _ = get_sample_task()
    base = XGBoostCostModel(task)
    assert base.fit_log(_records(task, range(64)), plan_size=16, min_seed_records=64)
    assert not XGBoostCostModel(task).fit_log(_records(task, range(8)), min_seed_records=9)
    upper = XGBoostCostModel(task)
    upper.load_basemodel(base)
    records = _records(task, [0, 63])
    upper.update([r[0] for r in records], [r[1] for r in records])
    everything = list(range(64))
    speeds = [1 / _cost(task.config_space.get(i)) for i in everything]
    assert _spearman(upper.predict(everything), speeds) > 0.8  # two trials alone could not rank 64
    with pytest.raises(ValueError, match="not fitted"):
        XGBoostCostModel(task).predict([0])
    with pytest.raises(ValueError, match=r"indices are in \[0, 64\)"):
        upper.predict([64])
    with pytest.raises(ValueError, match="feature_type"):
        XGBoostCostModel(task, feature_type="loops")


def test_a_batch_of_features_lowered_in_workers_equals_the_features_lowered_here(monkeypatch):
    """A generation's features are lowered in worker processes: the same vectors, rejected
    configurations included, as lowering each in this process gives."""
    from tune.autotvm.tuner import xgboost_cost_model as xcm

    task, _ = get_sample_task()
    indices = list(range(0, len(task.config_space), max(1, len(task.config_space) // 12)))[:12]
    monkeypatch.setattr(xcm, "FEATURE_WORKERS", 2)
    pooled = XGBoostCostModel(task, feature_type="itervar")
    here = XGBoostCostModel(task, feature_type="itervar")
    got = pooled.features(task, indices)
    assert pooled._pool is not None  # the batch went to the workers
    pooled._pool.close()
    for i, row in zip(indices, got):
        np.testing.assert_array_equal(row, here.feature(task, i))


def test_a_feature_lowering_that_times_out_in_a_worker_is_not_tried_again_here(monkeypatch):
    """A lowering that outlives its worker's timeout counts as a rejected configuration; it is
    not lowered again in this process, where nothing could stop it (a tuning of ResNet-18's
    stem hung so, in isl)."""
    from tune.autotvm.tuner import xgboost_cost_model as xcm

    from . import templates

    task, _ = get_sample_task()
    indices = list(range(8))
    monkeypatch.setattr(xcm, "FEATURE_WORKERS", 2)
    monkeypatch.setattr(xcm, "FEATURE_TIMEOUT", 1.0)
    monkeypatch.setattr(xcm, "feature_job", templates.stuck_feature_job)

    def lowered_here(*args):
        raise AssertionError("a configuration was lowered in this process")
    monkeypatch.setattr(xcm, "schedule_features", lowered_here)
    model = XGBoostCostModel(task, feature_type="itervar")
    start = time.time()
    rows = model.features(task, indices)
    model._pool.close()
    assert time.time() - start < 30
    assert len(rows) == 8 and all(row[-1] == 1.0 and not row[-1 - LENGTH:-1].any() for row in rows)


def test_a_small_batch_lowered_here_gives_up_past_its_isl_steps(monkeypatch):
    """Fewer than FEATURE_BATCH configurations are lowered in this process, where no worker's
    timeout applies: past FEATURE_ISL_STEPS isl steps a configuration counts as rejected, and
    the limit is lifted afterwards."""
    import islpy as isl

    from tune import autotvm
    from tune.autotvm.tuner import xgboost_cost_model as xcm

    from . import templates  # noqa: F401  (registers the template)

    task = autotvm.task.create("tests/padded_at_tile", args=(40,))
    before = isl.DEFAULT_CONTEXT.get_max_operations()
    monkeypatch.setattr(xcm, "FEATURE_ISL_STEPS", 1)
    starved = XGBoostCostModel(task, feature_type="itervar").features(task, [0, 1, 2])
    assert all(row[-1] == 1.0 and not row[-1 - LENGTH:-1].any() for row in starved)
    assert isl.DEFAULT_CONTEXT.get_max_operations() == before
    monkeypatch.undo()
    fed = XGBoostCostModel(task, feature_type="itervar").features(task, [0, 1, 2])
    assert all(row[-1] == 0.0 and row[-1 - LENGTH:-1].any() for row in fed)
