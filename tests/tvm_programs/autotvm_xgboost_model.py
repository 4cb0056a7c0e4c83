"""TVM's test_autotvm_xgboost_model (v0.14), written anew: a base model fitted to a log lifts
an upper model; load_history seeds a base model only from enough records; update keeps xs,
ys and visited in step."""

import multiprocessing

import numpy as np
from tvm import autotvm
from tvm.autotvm.tuner.xgboost_cost_model import XGBoostCostModel
from tvm.testing.autotvm import get_sample_records, get_sample_task


def test_fit():
    task, _ = get_sample_task()
    records = get_sample_records(n=500)
    base = XGBoostCostModel(task, feature_type="itervar", loss_type="reg")
    assert base.fit_log(records, plan_size=32)
    upper = XGBoostCostModel(task, feature_type="itervar", loss_type="reg")
    upper.load_basemodel(base)
    upper.fit(np.arange(10), np.arange(10), plan_size=32)
    for n in (12, 8):  # indices of configuration 1, as many as asked
        scores = upper.predict(np.ones(n))
        assert len(scores) == n and np.all(scores == scores[0])


def in_a_spawned_process():
    assert multiprocessing.get_start_method(False) == "spawn"
    test_fit()


def test_fit_in_a_spawned_process():
    process = multiprocessing.get_context("spawn").Process(target=in_a_spawned_process)
    process.start()
    process.join()
    assert process.exitcode == 0


def test_load_history_seeds_a_base_model():
    task, _ = get_sample_task()
    records = get_sample_records(n=10)
    tuner = autotvm.tuner.XGBTuner(task)
    tuner.load_history(records, min_seed_records=10)
    assert tuner.cost_model.base_model is not None
    tuner = autotvm.tuner.XGBTuner(task)
    tuner.load_history(records, min_seed_records=11)
    assert tuner.cost_model.base_model is None


def test_update():
    task, _ = get_sample_task()
    tuner = autotvm.tuner.XGBTuner(task)
    records = get_sample_records(n=5)
    tuner.update([inp for inp, _ in records], [res for _, res in records])
    assert len(tuner.xs) == len(tuner.ys) == len(tuner.visited) == 5
    assert all(x in tuner.visited for x in tuner.xs)


if __name__ == "__main__":
    test_fit()
    test_load_history_seeds_a_base_model()
    test_update()
