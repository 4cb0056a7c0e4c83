"""The search over loop states: TVM's annotations of a filled sketch (checked on the printed
state and against NumPy), and the search itself: each batch handed to the callbacks as the
policy, inputs of states and auto_scheduler results, written as TVM's log lines, never a state
measured twice, a log resumed, early stopping, and the best state applied, its result NumPy's."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import schedule as te
from lower import build
from tune.auto_scheduler.compute_dag import ComputeDAG
from tune.auto_scheduler.init_rules import MAX_VECTORIZE, annotate
from tune.auto_scheduler.loop_state import REDUCTION
from tune.auto_scheduler.measure import RecordToFile
from tune.auto_scheduler.records import MeasureInput, MeasureResult, RecordReader
from tune.auto_scheduler.search_task import (
    EmptyPolicy,
    HardwareParams,
    PreloadMeasuredStates,
    SearchTask,
    SketchPolicy,
    TuningOptions,
)
from tune.auto_scheduler.state_search import REMEASURE_TOP
from tune.autotvm.measure import Runner

RNG = np.random.default_rng(11)


def _task(n=32, m=32, k=16, name="state-search"):
    A, B = te.placeholder((n, k), name="A"), te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C",
                   attrs={"layout_free_placeholders": [B]})
    D = te.compute((n, m), lambda i, j: te.max(C[i, j], 0.0), name="D")
    return SearchTask(compute_dag=ComputeDAG([A, B, D]), workload_key=f"{name}-{n}-{m}-{k}", target="llvm",
                      hardware_params=HardwareParams(num_cores=2))


def _check(task, sch, args):
    a = RNG.standard_normal([int(d.value) for d in args[0].shape]).astype("float32")
    b = RNG.standard_normal([int(d.value) for d in args[1].shape]).astype("float32")
    out = np.full([int(d.value) for d in args[2].shape], np.nan, "float32")
    build(sch, args)(a, b, out)
    np.testing.assert_allclose(out, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


class Costs(Runner):
    """A runner giving each trial a cost from its steps (a stand-in for timing), and counting
    the trials it was given."""

    def __init__(self):
        super().__init__()
        self.seen = []
        self.cost = {}  # by state: the same every time

    def run(self, measure_inputs, build_results):
        from tune.autotvm.measure import MeasureResult as Timed

        out = []
        for inp, built in zip(measure_inputs, build_results):
            self.seen.append(json.dumps([s.record() for s in inp.state.transform_steps]))
            cost = 1e-3 * (1 + len(self.seen[-1]) % 7) if built.schedule is not None else None
            self.cost[self.seen[-1]] = cost if cost else float("inf")
            out.append(Timed((cost,), 0, 0.0, 0.0) if cost else Timed(("no build",), 2, 0.0, 0.0))
        return out


def test_the_annotations_of_a_filled_sketch_are_tvms_and_keep_the_result():
    task = _task()
    policy = SketchPolicy(task, seed=1)
    rng = random.Random(0)
    for state in policy.sample_initial_population(6):
        state = annotate(task.compute_dag.infer_bound_from_state(state), 2, rng)
        for sid, stage in enumerate(state.stages):
            if stage.op_type == 0 or stage.compute_at == 1:
                continue
            kinds = {it.annotation for it in stage.iters}
            if stage.compute_at == 0:
                assert 3 in kinds, f"stage {stage.op.name} at the root has no parallel loop:\n{state}"
            vector = [it for it in stage.iters if it.annotation == 2]
            for it in vector:
                assert it is stage.iters[-1] and int(it.range.extent.value) <= MAX_VECTORIZE
            if any(it.iter_kind == REDUCTION for it in stage.iters):
                assert any(s.kind == "PR" and s.fields[0] == sid and s.fields[1] == 0 for s in state.transform_steps)
        _check(task, *task.compute_dag.apply_steps_from_state(state))


def test_a_search_hands_each_batch_to_the_callbacks_and_logs_tvms_lines(tmp_path):
    task = _task()
    log = tmp_path / "log.json"
    seen = []

    def callback(policy, inputs, results):
        assert isinstance(policy, SketchPolicy)
        assert all(isinstance(i, MeasureInput) and i.task is task for i in inputs)
        assert all(isinstance(r, MeasureResult) for r in results)
        seen.append(len(inputs))

    runner = Costs()
    policy = SketchPolicy(task, seed=2, verbose=0)
    task.tune(TuningOptions(num_measure_trials=10, num_measures_per_round=4, runner=runner, verbose=0,
                            measure_callbacks=[RecordToFile(str(log)), callback]), search_policy=policy)
    # ten trials, then the best three measured again in one batch (logged, no trial counted)
    assert seen[-1] == REMEASURE_TOP and sum(seen) == 10 + REMEASURE_TOP and max(seen) <= 4
    trials, again = runner.seen[:10], runner.seen[10:]
    assert len(set(trials)) == 10  # no state measured twice as a trial
    assert again == sorted(trials, key=runner.cost.__getitem__)[:REMEASURE_TOP]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 10 + REMEASURE_TOP and all(set(line) == {"i", "r", "v"} for line in lines)
    assert lines[0]["i"][0][0] == task.workload_key
    records = list(RecordReader(log))
    best = min(records, key=lambda r: r[1].costs[0])[0]
    sch, args = task.apply_best(str(log))
    _check(task, sch, args)
    assert json.dumps([s.record() for s in best.state.transform_steps]) in runner.seen


def test_a_resumed_search_measures_no_state_of_its_log_again(tmp_path):
    task = _task(name="state-resume")
    log = str(tmp_path / "log.json")
    first = Costs()
    task.tune(TuningOptions(num_measure_trials=6, num_measures_per_round=3, runner=first, verbose=0,
                            measure_callbacks=[RecordToFile(log)]), search_policy=SketchPolicy(task, seed=3))
    second = Costs()
    policy = SketchPolicy(task, seed=3, init_search_callbacks=[PreloadMeasuredStates(log)])
    task.tune(TuningOptions(num_measure_trials=6, num_measures_per_round=3, runner=second, verbose=0,
                            measure_callbacks=[RecordToFile(log)]), search_policy=policy)
    trials, again = second.seen[:6], second.seen[6:]
    assert len(trials) == 6 and not set(trials) & set(first.seen)
    assert len(again) == REMEASURE_TOP and set(again) <= set(trials)  # only its own states, again
    _check(task, *task.apply_best(log))  # the best of both runs


def test_early_stopping_ends_the_search_after_trials_without_improvement():
    task = _task(name="state-early")

    class Flat(Costs):
        def run(self, measure_inputs, build_results):
            from tune.autotvm.measure import MeasureResult as Timed

            self.seen += [None] * len(measure_inputs)
            return [Timed((1e-3,), 0, 0.0, 0.0) for _ in measure_inputs]
    runner = Flat()
    task.tune(TuningOptions(num_measure_trials=40, num_measures_per_round=2, early_stopping=3, runner=runner,
                            verbose=0), search_policy=SketchPolicy(task, seed=4))
    # the first trial is the best; the search stops after the round in which more than 3 trials
    # have followed it (TVM's test), the third; then the best three are measured again
    assert len(runner.seen) == 6 + REMEASURE_TOP


def test_the_empty_policy_measures_the_initial_state():
    task = _task(name="state-empty")
    runner = Costs()
    task.tune(TuningOptions(num_measure_trials=2, runner=runner, verbose=0), search_policy=EmptyPolicy(task))
    assert runner.seen == ["[]", "[]"]


def test_bad_policy_parameters_are_refused():
    task = _task(name="state-bad")
    with pytest.raises(ValueError, match="space"):
        SketchPolicy(task, params={"space": "trees"})
    with pytest.raises(TypeError, match="params"):
        SketchPolicy(task, params=[("eps_greedy", 0.1)])
    with pytest.raises(ValueError, match="eps_greedy"):
        SketchPolicy(task, params={"eps_greedy": "often"})
    with pytest.raises(ValueError, match="evolutionary_search_population"):
        SketchPolicy(task, params={"evolutionary_search_population": -4})
