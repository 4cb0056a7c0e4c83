"""XGBTuner's evolutionary search (optimizer="evolution"): each generation's children are
mutants (one or two knobs drawn anew) or crossovers (each knob from one of two parents) of the
best measured configurations, unvisited and valid; a tuning with it finds a schedule that
computes what NumPy computes; other optimizers are refused."""

from __future__ import annotations

import numpy as np
import pytest

import lower
from tune import auto_scheduler, autotvm
from tune.autotvm.tuner.xgb_tuner import CHILDREN

from . import templates
from .busy import BUSY


def _task():
    A, B, C = templates.matmul(32)
    return auto_scheduler.create("test_evolution_matmul", [A, B, C])


def test_children_are_mutants_or_crossovers_of_their_parents():
    task = _task()
    tuner = autotvm.tuner.XGBTuner(task, optimizer="evolution", seed=1)
    space = tuner.space
    rng = np.random.default_rng(2)
    parents = [int(i) for i in rng.choice(len(space), 4, replace=False)]
    tuner.visited.add(parents[0])
    children = tuner._children(parents)
    assert 0 < len(children) <= CHILDREN
    knobs = [space.point2knob(p) for p in parents]
    for child in children:
        assert child not in tuner.visited and space.is_index_valid(child)
        k = space.point2knob(child)
        mutant = any(sum(a != b for a, b in zip(k, p)) <= 2 for p in knobs)
        crossover = any(all(a in (x, y) for a, x, y in zip(k, p, q)) for p in knobs for q in knobs)
        assert mutant or crossover
    assert tuner._children([]) == []


def test_a_tuning_with_the_evolutionary_search_finds_a_working_schedule(tmp_path):
    task = _task()
    log = str(tmp_path / "evo.log")
    tuner = autotvm.tuner.XGBTuner(task, optimizer="evolution", plan_size=4, seed=0)
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(timeout=BUSY),
                                    runner=autotvm.LocalRunner(number=1, repeat=1, timeout=BUSY))
    tuner.tune(8, option, callbacks=[autotvm.callback.log_to_file(log)])
    assert tuner.trials == 8 and tuner.best_config is not None and tuner.cost_model.bst is not None
    s, args = auto_scheduler.apply_best(task, log)
    a, b = (np.random.default_rng(k).random((32, 32)).astype("float32") for k in (3, 4))
    c = np.full((32, 32), np.nan, "float32")
    lower.build(s, args)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_an_unknown_optimizer_is_refused():
    with pytest.raises(ValueError, match="optimizer"):
        autotvm.tuner.XGBTuner(_task(), optimizer="genetic")
