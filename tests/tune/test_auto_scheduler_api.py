"""The auto_scheduler entry points with TVM's names: workloads and their keys, the printed
ComputeDAG (checked against hand-written text), the printed schedule (replayed, it lowers to
the same IR as the best schedule), SearchTask and its errors."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from tune import auto_scheduler
from tune.auto_scheduler.search_task import REMEASURE_TOP
from tune.autotvm.measure import LocalBuilder, LocalRunner, MeasureInput, MeasureResult, measure_option
from tune.autotvm.space import InstantiationError

from .busy import BUSY


@auto_scheduler.register_workload
def softmax_rows(rows, cols):
    x = te.placeholder((rows, cols), name="x")
    k1, k2 = te.reduce_axis((0, cols), name="k1"), te.reduce_axis((0, cols), name="k2")
    mx = te.compute((rows,), lambda i: te.max(x[i, k1], axis=k1), name="mx")
    ex = te.compute((rows, cols), lambda i, j: te.exp(x[i, j] - mx[i]), name="ex")
    sm = te.compute((rows,), lambda i: te.sum(ex[i, k2], axis=k2), name="sm")
    out = te.compute((rows, cols), lambda i, j: ex[i, j] / sm[i], name="out")
    return [x, out]


def test_the_dag_prints_each_operation_after_its_inputs_as_tvm_does():
    task = auto_scheduler.SearchTask(func=softmax_rows, args=(4, 8), target="llvm")
    assert task.workload_key == '["softmax_rows", 4, 8]'
    assert str(task.compute_dag) == (
        "x = PLACEHOLDER [4, 8]\n"
        "mx(i) max= x[i, k1]\n"
        "ex(i, j) = exp((x[i, j] - mx[i]))\n"
        "sm(i) += ex[i, k2]\n"
        "out(i, j) = (ex[i, j]/sm[i])\n")
    # the same from the key alone, and from the tensors
    assert str(auto_scheduler.ComputeDAG(task.workload_key)) == str(task.compute_dag)
    assert str(auto_scheduler.ComputeDAG(softmax_rows(4, 8))) == str(task.compute_dag)


def _log(task, configs, costs):
    space = task.tuning_task.config_space
    return [(MeasureInput("llvm", task.tuning_task, space.get(i)), MeasureResult((c,), 0, 0.0, 0.0))
            for i, c in zip(configs, costs)]


def test_apply_best_builds_the_best_and_its_printed_schedule_replays_to_the_same_ir():
    task = auto_scheduler.SearchTask(func=softmax_rows, args=(4, 8), target="llvm")
    n = len(task.tuning_task.config_space)
    picks = [0, n // 3, n - 1]
    records = _log(task, picks, [3.0, 1.0, 2.0])
    s, args = task.apply_best(records)
    a = np.random.default_rng(0).standard_normal((4, 8)).astype("float32")
    out = np.full((4, 8), np.nan, dtype="float32")
    build(s, args, target="c")(a, out)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5)

    replayed = 0
    for index in range(0, n, n // 9):
        one = _log(task, [index], [1.0])
        text = task.print_best(one)
        if "a stage a primitive added" in text:  # not replayable: the text names the stage only
            continue
        x, out_t = softmax_rows(4, 8)
        ops = {op.name: op.output(0) for op in auto_scheduler.ComputeDAG([x, out_t]).ops}
        replay = te.create_schedule(out_t.op)
        exec(text, {"s": replay, "te": te, **ops})  # noqa: S102 - the text under test
        best, best_args = task.apply_best(one)
        assert str(lower(replay, [x, out_t])) == str(lower(best, best_args)), text
        replayed += 1
    assert replayed >= 8


def test_a_fresh_process_finds_the_records_of_a_task_made_again(tmp_path):
    task = auto_scheduler.SearchTask(func=softmax_rows, args=(4, 8), target="llvm")
    log = tmp_path / "log.json"
    write = auto_scheduler.RecordToFile(str(log))
    pairs = _log(task, [1, 2], [2.0, 1.0])
    write(None, [p[0] for p in pairs], [p[1] for p in pairs])
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(__file__.rsplit('/tests/', 1)[0])!r})
        from tests.tune.test_auto_scheduler_api import softmax_rows
        from tune import auto_scheduler
        task = auto_scheduler.SearchTask(func=softmax_rows, args=(4, 8), target="llvm")
        s, args = task.apply_best({str(log)!r})
        print(auto_scheduler.load_records({str(log)!r})[1][0].config.index)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"


@auto_scheduler.register_workload
def one_row_matmul(n):
    a, b = te.placeholder((1, n), name="a"), te.placeholder((n, n), name="b")
    k = te.reduce_axis((0, n), name="k")
    return [a, b, te.compute((1, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="c")]


def test_configurations_the_sketch_rejects_cost_no_trial(tmp_path):
    # one row: with the parallel loop over the rows alone (parallel_depth 1), 1 iteration for
    # CORES cores, which the sketch rejects wherever the columns' tiles would give as many (and
    # vector loops of fewer than 8 lanes, everywhere)
    task = auto_scheduler.SearchTask(func=one_row_matmul, args=(64,), target="llvm")
    space = task.tuning_task.config_space
    sample = range(0, len(space), 7)
    rejected = 0
    for index in sample:
        try:
            task.tuning_task.instantiate(space.get(index))
        except InstantiationError:
            rejected += 1
    assert rejected > len(sample) // 4
    log = str(tmp_path / "log.json")
    tuner = auto_scheduler.SketchPolicy(task, auto_scheduler.RandomModel(), seed=3).make_tuner()
    tuner.tune(24, measure_option(LocalBuilder(timeout=BUSY), LocalRunner(timeout=BUSY)),
               callbacks=[auto_scheduler.RecordToFile(log)])
    records = auto_scheduler.load_records(log)
    # the budget was spent on built configurations; the best three were measured again at the end
    assert tuner.trials == len(records) - REMEASURE_TOP == 24
    assert {inp.config.index for inp, _ in records[24:]} <= {inp.config.index for inp, _ in records[:24]}
    assert all(res.error_no == 0 for _, res in records)
    assert len(tuner.visited) == 24 + tuner.rejected
    assert tuner.rejected > 0
    s, args = task.apply_best(log)
    rng = np.random.default_rng(4)
    a, b = rng.random((1, 64)).astype("float32"), rng.random((64, 64)).astype("float32")
    c = np.full((1, 64), np.nan, "float32")
    build(s, args)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_bad_arguments_are_refused():
    def not_registered(n):
        return []

    with pytest.raises(ValueError, match="not a registered workload"):
        auto_scheduler.SearchTask(func=not_registered, args=(1,))
    with pytest.raises(TypeError, match="func= and args="):
        auto_scheduler.SearchTask()
    with pytest.raises(ValueError, match="already registered"):
        auto_scheduler.register_workload("softmax_rows", lambda: [])
    with pytest.raises(TypeError, match="a function, or a non-empty name"):
        auto_scheduler.register_workload(3)
    with pytest.raises(ValueError, match="not a workload key"):
        auto_scheduler.ComputeDAG("softmax_rows(4, 8)")
    with pytest.raises(ValueError, match="num_measure_trials"):
        auto_scheduler.TuningOptions(num_measure_trials=-1)
    task = auto_scheduler.SearchTask(func=softmax_rows, args=(4, 8))
    with pytest.raises(TypeError, match="takes TuningOptions"):
        task.tune({"num_measure_trials": 2})
    with pytest.raises(ValueError, match="print_mode"):
        task.print_best(_log(task, [0], [1.0]), print_mode="ptx")
    with pytest.raises(TypeError, match="an XGBModel, a RandomModel or a PythonBasedModel"):
        auto_scheduler.SketchPolicy(task, program_cost_model="xgb")
