"""TVM's auto_scheduler.TaskScheduler: several tasks on one trial budget. The gradient rule
on hand-set states (which task a round goes to, and why), round-robin, early stopping and
exhausted spaces, a real tuning of two matmuls whose best schedules compute what NumPy
computes, and the refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import lower
import schedule as te
from tune import auto_scheduler


@auto_scheduler.register_workload
def sched_scale(n):
    A = te.placeholder((n,), name="A")
    return [A, te.compute((n,), lambda i: A[i] * 2, name="B")]


@auto_scheduler.register_workload
def sched_matmul(n):
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    return [A, B, te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")]


def _tasks(*sizes):
    return [auto_scheduler.SearchTask(func=sched_matmul, args=(n,), target="llvm") for n in sizes]


def test_the_gradient_rule_gives_the_round_to_the_largest_expected_gain():
    sched = auto_scheduler.TaskScheduler(_tasks(8, 16, 32), task_weights=[1, 1, 10])
    sched.best_costs = [1.0, 4.0, 1.0]
    sched.task_cts = [2, 2, 2]
    sched.task_costs_history = [[1.0, 1.0], [4.0, 4.0], [1.0, 1.0]]
    # forward estimates: -cost / 3 for each; weighted: -1/3, -4/3, -10/3: the third task
    grads = [sched.gradient(i) for i in range(3)]
    assert grads[2] < grads[1] < grads[0] < 0
    assert math.isclose(grads[1], -(1 - sched.alpha) * 4.0 / 3, rel_tol=1e-4)
    assert sched._next_task() == 2
    sched.dead.add(2)
    assert sched._next_task() == 1
    # a task that nothing has worked for yet comes first; a backward gain counts with alpha
    sched.best_costs[0] = math.inf
    assert sched._next_task() == 0
    sched.best_costs[0] = 1.0
    sched.task_cts[0] = 5
    sched.task_costs_history[0] = [9.0, 8.0, 6.0, 4.0, 1.0]  # it gained 7 in the last 3 rounds
    assert math.isclose(sched.gradient(0), sched.alpha * (1.0 - 8.0) / 3 + (1 - sched.alpha) * (-1.0 / 6),
                        rel_tol=1e-4)
    # an objective of the caller's: the second task alone matters
    only_second = auto_scheduler.TaskScheduler(_tasks(8, 16), objective_func=lambda costs: costs[1])
    only_second.best_costs, only_second.task_cts = [5.0, 1.0], [1, 1]
    only_second.task_costs_history = [[5.0], [1.0]]
    assert only_second.gradient(0) == pytest.approx(0.0, abs=1e-9) and only_second._next_task() == 1
    robin = auto_scheduler.TaskScheduler(_tasks(8, 16, 32), strategy="round-robin")
    robin.task_cts = [3, 2, 2]
    assert robin._next_task() == 1


def test_two_tasks_share_the_budget_and_their_best_schedules_compute_the_product(tmp_path):
    log = str(tmp_path / "tasks.json")
    tasks = _tasks(8, 16)
    sched = auto_scheduler.TaskScheduler(tasks, task_weights=[1, 4])
    option = auto_scheduler.TuningOptions(num_measure_trials=12, num_measures_per_round=3, verbose=0,
                                          measure_callbacks=[auto_scheduler.RecordToFile(log)])
    sched.tune(option, search_policy="sketch.random", per_task_early_stopping=50)
    assert sched.ct == 12 and sum(t.trials for t in sched.tuners) == 12
    assert all(c >= 1 for c in sched.task_cts) and sum(sched.task_cts) == 4  # rounds of 3
    assert all(math.isfinite(c) for c in sched.best_costs)
    rng = np.random.default_rng(0)
    for task, n in zip(tasks, (8, 16)):
        s, args = task.apply_best(log)
        a, b = rng.random((n, n)).astype("float32"), rng.random((n, n)).astype("float32")
        c = np.full((n, n), np.nan, "float32")
        lower.build(s, args)(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-5)
    # a scheduler made again resumes from the log: the trials done count as visited
    again = auto_scheduler.TaskScheduler(tasks, load_log_file=log)
    again.tune(auto_scheduler.TuningOptions(num_measure_trials=0, verbose=0), search_policy="sketch.random")
    assert sum(len(t.visited) for t in again.tuners) == 12


def test_a_task_stops_when_its_space_is_exhausted_or_it_stops_improving():
    tiny = auto_scheduler.SearchTask(func=sched_scale, args=(4,), target="llvm")
    size = len(tiny.tuning_task.config_space)
    assert size <= 8  # a space of a few configurations
    sched = auto_scheduler.TaskScheduler([tiny])
    sched.tune(auto_scheduler.TuningOptions(num_measure_trials=size + 20, num_measures_per_round=4, verbose=0),
               search_policy="sketch.random", search_policy_params={"space": "knobs"})
    assert sched.ct == size and 0 in sched.dead
    # over loop states: each of the tiny task's few states once, then no more rounds
    states = auto_scheduler.TaskScheduler([tiny])
    states.tune(auto_scheduler.TuningOptions(num_measure_trials=20, num_measures_per_round=4, verbose=0),
                search_policy="sketch.random")
    assert 0 in states.dead and 1 <= states.ct < 20 and len(states.tuners[0].visited) == states.ct
    stalled = auto_scheduler.TaskScheduler(_tasks(16))
    stalled.tune(auto_scheduler.TuningOptions(num_measure_trials=30, num_measures_per_round=2, verbose=0),
                 search_policy="sketch.random", per_task_early_stopping=1)
    tuner = stalled.tuners[0]
    assert 0 in stalled.dead and tuner.trials - tuner.best_iter >= 1 and stalled.ct < 30


def test_bad_arguments_are_refused():
    tasks = _tasks(8)
    with pytest.raises(TypeError, match="SearchTask"):
        auto_scheduler.TaskScheduler([])
    with pytest.raises(TypeError, match="SearchTask"):
        auto_scheduler.TaskScheduler(["matmul"])
    with pytest.raises(ValueError, match="task_weights"):
        auto_scheduler.TaskScheduler(tasks, task_weights=[1, 2])
    with pytest.raises(ValueError, match="strategy"):
        auto_scheduler.TaskScheduler(tasks, strategy="greedy")
    with pytest.raises(ValueError, match="alpha"):
        auto_scheduler.TaskScheduler(tasks, alpha=2)
    sched = auto_scheduler.TaskScheduler(tasks)
    with pytest.raises(TypeError, match="TuningOptions"):
        sched.tune({"num_measure_trials": 4})
    with pytest.raises(ValueError, match="per_task_early_stopping"):
        sched.tune(auto_scheduler.TuningOptions(num_measure_trials=4), per_task_early_stopping=0)
    with pytest.raises(ValueError, match="search_policy"):
        sched.tune(auto_scheduler.TuningOptions(num_measure_trials=4), search_policy="sketch.annealing")
