"""The droplet tuner: its t-test against SciPy's, its start state, and a search that walks a
synthetic cost surface down to its minimum while staying inside a filtered space."""

from __future__ import annotations

import pytest

from tune import autotvm
from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.testing import DummyRunner, get_sample_task
from tune.autotvm.tuner import DropletTuner
from tune.autotvm.tuner.droplet import t_test_pvalue

from .busy import BUSY


@pytest.mark.parametrize("x, y", [([1, 2, 3], [2, 3, 4.5]), ([1.0, 1.1, 0.9, 1.05], [2.0, 2.1, 1.9]),
                                  ([5, 5.1], [5.05, 5.2, 4.9, 5.0])])
def test_the_t_test_matches_scipy(x, y):
    stats = pytest.importorskip("scipy.stats")
    assert t_test_pvalue(x, y) == pytest.approx(stats.ttest_ind(x, y).pvalue, rel=1e-9)


def test_samples_without_spread_differ_exactly_when_their_values_do():
    assert t_test_pvalue([3, 3], [3, 3, 3]) == 1.0 and t_test_pvalue([3, 3], [2, 2]) == 0.0


def test_a_new_tuner_starts_at_the_origin():
    task, _ = get_sample_task()
    tuner = DropletTuner(task)
    assert tuner.best_choice[0] == -1 and tuner.visited == {0} and tuner.total_execution == max(tuner.dims)
    with pytest.raises(ValueError, match="not a point of the knob grid"):
        DropletTuner(task, start_position=[99] * len(tuner.dims))


def _drive(tuner, cost, rounds=40):
    """Run the tuner's loop with the deterministic *cost* of each configuration."""
    for _ in range(rounds):
        if not tuner.has_next():
            break
        configs = tuner.next_batch(8)
        if not configs:
            break
        inputs = [MeasureInput(tuner.task.target, tuner.task, c) for c in configs]
        results = [MeasureResult((cost(c),) * 3, 0, 0.0, 0.0) for c in configs]
        tuner.update(inputs, results)


def test_the_search_walks_down_to_the_minimum_inside_the_filtered_space():
    task, _ = get_sample_task()
    space = task.config_space
    space.multi_filter(filter=lambda e: e["tile_x"].size[1] * e["tile_y"].size[1] < 256)
    valid = [i for i in range(space.range_length) if space.is_index_valid(i)]
    target = space.point2knob(valid[len(valid) // 2])

    def cost(config):
        return 1.0 + sum(abs(a - b) for a, b in zip(space.point2knob(config.index), target))

    tuner = DropletTuner(task)
    _drive(tuner, cost)
    assert tuner.best_choice[1] == target and tuner.best_choice[2][0] == 1.0
    assert all(space.is_index_valid(i) for i, _ in tuner._sent)


def test_tune_counts_each_trial_once():
    task, _ = get_sample_task()
    tuner = DropletTuner(task)
    tuner.tune(n_trial=6, measure_option=autotvm.measure_option(builder=autotvm.LocalBuilder(timeout=BUSY), runner=DummyRunner()))
    assert tuner.trials == 6 and len(tuner._sent) <= 6
