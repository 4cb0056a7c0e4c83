"""Tuning and fitting in a process started with ``spawn`` (TVM's *_spawn tests): the tuners,
the DummyRunner and the cost model work in a fresh interpreter whose start method is spawn,
so their own workers are spawned from a spawned process."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from tune import autotvm
from tune.autotvm.testing import DummyRunner, get_sample_records, get_sample_task

from .busy import BUSY


def tune_every_tuner() -> None:
    assert multiprocessing.get_start_method(False) == "spawn"
    task, _ = get_sample_task()
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(timeout=BUSY), runner=DummyRunner())
    for tuner_class in (autotvm.tuner.RandomTuner, autotvm.tuner.GridSearchTuner, autotvm.tuner.GATuner):
        tuner = tuner_class(task)
        tuner.tune(n_trial=4, measure_option=option)
        assert tuner.best_flops > 1


def fit_a_model() -> None:
    from tune.autotvm.tuner.xgboost_cost_model import XGBoostCostModel

    assert multiprocessing.get_start_method(False) == "spawn"
    task, _ = get_sample_task()
    model = XGBoostCostModel(task)
    assert model.fit_log(get_sample_records(64), plan_size=16, min_seed_records=64)
    assert len(model.predict(np.arange(8))) == 8


@pytest.mark.parametrize("job", [tune_every_tuner, fit_a_model], ids=["tuners", "cost_model"])
def test_in_a_spawned_process(job):
    if job is fit_a_model:
        pytest.importorskip("xgboost")
    process = multiprocessing.get_context("spawn").Process(target=job)
    process.start()
    process.join(300)
    assert process.exitcode == 0
