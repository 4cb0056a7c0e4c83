"""Ranking on a busy machine: trials rank by the fastest of their repeats, and a tuner with
``remeasure_top`` (the auto-scheduler's) measures its best configurations again at the end and
keeps the fastest of all their runs; the new runs are logged, and no trial is counted for them.
Timings come from a scripted runner (a stand-in for a machine whose load comes and goes)."""

from __future__ import annotations

import json

from tune import autotvm
from tune.autotvm.measure import MeasureResult, Runner
from tune.autotvm.tuner.tuner import fastest

from . import templates  # noqa: F401 - registers the templates

#: Seconds per call of each configuration, on a quiet machine.
TRUE = {0: 2.0e-3, 1: 3.0e-3, 2: 1.0e-3, 3: 4.0e-3, 4: 5.0e-3, 5: 6.0e-3, 6: 7.0e-3, 7: 8.0e-3}
#: Configuration 2, the fastest, is first timed while another process holds the CPU.
BUSY_FIRST = {2: 2.5e-3}


class Scripted(Runner):
    def __init__(self) -> None:
        super().__init__()
        self.runs: list[int] = []

    def run(self, measure_inputs, build_results):
        out = []
        for inp in measure_inputs:
            index = inp.config.index
            first = index not in self.runs
            self.runs.append(index)
            cost = BUSY_FIRST.get(index, TRUE[index]) if first else TRUE[index]
            out.append(MeasureResult((cost * 1.5, cost), 0, 0.0, 0.0))  # the fastest repeat is the second
        return out


def _tune(remeasure_top, log):
    task = autotvm.task.create("tests/columns_matmul", args=(8,), target="c")
    assert len(task.config_space) == len(TRUE)
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.remeasure_top = remeasure_top
    runner = Scripted()
    tuner.tune(n_trial=len(TRUE), measure_option=autotvm.measure_option(builder="local", runner=runner),
               callbacks=[autotvm.callback.log_to_file(str(log))])
    return tuner, runner


def test_the_fastest_repeat_ranks_a_trial():
    assert fastest(MeasureResult((5.0, 1.5, 2.0), 0, 0.0, 0.0)) == 1.5
    assert fastest(MeasureResult(("error",), 4, 0.0, 0.0)) == float("inf")


def test_without_remeasurement_a_configuration_timed_when_busy_loses(tmp_path):
    tuner, runner = _tune(0, tmp_path / "log.json")
    assert tuner.best_config.index == 0 and tuner.best_cost == TRUE[0]
    assert runner.runs == list(range(len(TRUE)))


def test_the_best_three_measured_again_give_the_fastest_its_second_chance(tmp_path):
    log = tmp_path / "log.json"
    tuner, runner = _tune(3, log)
    assert tuner.best_config.index == 2 and tuner.best_cost == TRUE[2]
    assert runner.runs == [*range(len(TRUE)), 0, 2, 1]  # the three best by first timing, again
    assert tuner.trials == len(TRUE)  # no trial counted for the second runs
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["config"]["index"] for line in lines] == runner.runs
    # What TVM's dispatch applies from the log is the configuration found fastest.
    best = autotvm.apply_history_best(str(log))
    assert best.query(tuner.task.target, tuner.task.workload).index == 2
