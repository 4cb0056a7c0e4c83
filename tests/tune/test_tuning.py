"""Tuning as TVM's autotvm_matmul_x86 tutorial does it: tuners measure configurations in worker
processes, log every trial, resume from a log, survive candidates that fail, hang or crash, and
apply_history_best rebuilds the best schedule, equal to NumPy."""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest

import schedule as te
from lower import build, lower, nd
from lower.backend.c.compile import find_compiler
from tune import LocalExecutor, autotvm

from . import templates

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


def _hang(a, out):
    ib = te.ir_builder.create()
    src, dst = ib.buffer_ptr(a), ib.buffer_ptr(out)
    with ib.while_loop(src[0] >= 0):  # the inputs are positive: forever
        dst[0] = src[0]
    return ib.get()


def _abort(*args):
    os.abort()


def _register_abort():
    te.register_func("test_tuning.abort", _abort, override=True)




@autotvm.template("test_tuning/misbehaving")
def misbehaving(n):
    """One good configuration and three that fail: rejected by the template, crashing, hanging."""
    A = te.placeholder((n,), name="A", dtype="int32")
    B = te.placeholder((n,), name="B", dtype="int32")
    cfg = autotvm.get_config()
    cfg.define_knob("mode", ["ok", "rejected", "crash", "hang"])  # crash where the registering worker runs
    mode = cfg["mode"].val
    if mode == "rejected":
        cfg.raise_error("this configuration needs too many registers")
    if mode == "hang":
        C = te.extern((n,), [A], lambda ins, outs: _hang(ins[0], outs[0]), name="C", dtype="int32")
    elif mode == "crash":
        # A kernel no longer dies of its own mistakes (a division by zero is a ZeroDivisionError),
        # but a Python function it calls may still end the process.
        C = te.extern((n,), [A, B], lambda ins, outs: te.call_packed("test_tuning.abort", ins[0], outs[0]),
                      name="C", dtype="int32")
    else:
        C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    return s, [A, B, C]


@pytest.fixture(scope="module")
def workers():
    """Shared executors: starting spawned workers costs about a second each."""
    builders, runner = LocalExecutor(2), LocalExecutor(1)
    yield builders, runner
    builders.close()
    runner.close()


def _option(workers, timeout=20.0, **runner):
    builders, runner_ex = workers
    return autotvm.measure_option(builder=autotvm.LocalBuilder(timeout=60, executor=builders),
                                  runner=autotvm.LocalRunner(number=2, repeat=1, timeout=timeout,
                                                             executor=runner_ex, **runner))


def _records(path):
    return list(autotvm.record.load_from_file(str(path)))


def test_the_tutorials_tuning_logs_every_trial_and_the_best_rebuilds_equal_to_numpy(tmp_path, workers):
    n = 64
    task = autotvm.task.create("tests/tutorial_matmul", args=(n, n, n, "float32"), target="llvm")
    assert len(task.config_space) == 49 and task.flop == 2 * n ** 3
    log = tmp_path / "matmul.log"
    tuner = autotvm.tuner.RandomTuner(task, seed=0)
    tuner.tune(n_trial=6, measure_option=_option(workers, check_correctness=True),
               callbacks=[autotvm.callback.log_to_file(str(log))])
    records = _records(log)
    assert len(records) == 6 and len({inp.config.index for inp, _ in records}) == 6
    assert all(res.error_no == 0 and len(res.costs) == 1 and 0 < res.costs[0] < 1 for _, res in records)
    line = json.loads(log.read_text().splitlines()[0])
    # The target the user asked for, as TVM's logs keep it (it runs on C).
    assert line["input"] == ["llvm", "tests/tutorial_matmul", [n, n, n, "float32"], {}] and line["version"] == 0.2
    best_inp, best_res = min(records, key=lambda r: r[1].mean)
    assert tuner.best_config.index == best_inp.config.index and tuner.best_cost == best_res.mean

    with autotvm.apply_history_best(str(log)):
        s, args = templates.tutorial_matmul(n, n, n, "float32")
    text = str(lower(s, args))
    inner = best_inp.config["tile_x"].size[1]
    assert inner == 1 or f"for (j.inner, 0, {inner})" in text
    rng = np.random.default_rng(0)
    a, b = nd.array(rng.random((n, n)).astype("float32")), nd.array(rng.random((n, n)).astype("float32"))
    for exact in (True, False):
        c = nd.array(np.full((n, n), np.nan, "float32"))
        build(s, args, exact=exact)(a, b, c)
        np.testing.assert_allclose(c.numpy(), a.numpy() @ b.numpy(), rtol=1e-5)


def test_a_tuning_resumes_from_its_log_without_measuring_a_trial_twice(tmp_path, workers):
    task = autotvm.task.create("tests/tutorial_matmul", args=(16, 16, 16, "float32"))
    log = tmp_path / "resume.log"
    first = autotvm.tuner.RandomTuner(task, seed=1)
    first.tune(n_trial=4, measure_option=_option(workers), callbacks=[autotvm.callback.log_to_file(str(log))])
    with open(log, "a") as f:
        f.write('{"input": ["c", "test_tuning/ma')  # a crash in the middle of a line
    second = autotvm.tuner.RandomTuner(task, seed=1)
    with pytest.warns(UserWarning, match="skipped"):
        second.load_history(_records(log))
    assert second.visited == {inp.config.index for inp, _ in _records_quiet(log)}
    assert second.best_cost == first.best_cost
    second.tune(n_trial=5, measure_option=_option(workers), callbacks=[autotvm.callback.log_to_file(str(log))])
    indices = [inp.config.index for inp, _ in _records_quiet(log)]
    assert len(indices) == 9 and len(set(indices)) == 9


def _records_quiet(path):
    with pytest.warns(UserWarning):
        return _records(path)


def test_grid_search_visits_every_configuration_in_order_and_finds_the_cheapest(workers):
    task = autotvm.task.create("tests/tutorial_matmul", args=(4, 4, 4, "float32"))  # 3 x 3 configurations
    seen = []
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=100, measure_option=_option(workers),
               callbacks=[lambda t, inputs, results: seen.extend((i.config.index, r.mean) for i, r in zip(inputs, results))])
    assert [i for i, _ in seen] == list(range(9))
    assert tuner.best_cost == min(c for _, c in seen) and tuner.best_config.index == min(seen, key=lambda x: x[1])[0]


def test_early_stopping_ends_the_search_after_trials_without_improvement(workers):
    task = autotvm.task.create("tests/tutorial_matmul", args=(8, 8, 8, "float32"))  # 16 configurations
    after_batch = []
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=16, measure_option=_option(workers), early_stopping=2,
               callbacks=[lambda t, inputs, results: after_batch.append(t.trials - t.best_iter)])
    # it goes on while the last improvement is fewer than 2 trials back, and stops at the first
    # batch where it is not (or when the space is done)
    assert all(since < 2 for since in after_batch[:-1])
    assert after_batch[-1] >= 2 or tuner.trials == 16


def test_failing_hanging_and_crashing_candidates_cost_only_themselves(workers):
    n = 16
    task = autotvm.task.create("test_tuning/misbehaving", args=(n,))
    ref = [np.arange(1, n + 1, dtype="int32"), np.zeros(n, "int32"), np.zeros(n, "int32")]
    results = {}
    _register_abort()
    for executor in workers:  # the workers register it too (importing this module)
        assert {r.status for r in executor.run(_register_abort, [()] * executor.size, timeout=60)} == {"ok"}
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=4, measure_option=_option(workers, timeout=4, ref_input=ref),
               callbacks=[lambda t, inputs, res: results.update((i.config["mode"].val, r) for i, r in zip(inputs, res))])
    E = autotvm.MeasureErrorNo
    assert {mode: r.error_no for mode, r in results.items()} == {
        "ok": E.NO_ERROR, "rejected": E.INSTANTIATION_ERROR, "hang": E.RUN_TIMEOUT, "crash": E.RUNTIME_DEVICE}
    assert "too many registers" in results["rejected"].error and "died" in results["crash"].error
    assert tuner.best_config["mode"].val == "ok" and tuner.trials == 4


@autotvm.template("test_tuning/shared_rows")
def shared_rows(n):
    """Row sums through shared memory: a block copies *rows* rows of A, too many for a GPU's
    48 KiB of shared memory with the second choice."""
    A = te.placeholder((n, 1024), name="A")
    k = te.reduce_axis((0, 1024), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    cfg.define_knob("rows", [4, 16])
    AS = s.cache_read(A, "shared", [B])
    bx, tx = s[B].split(B.op.axis[0], factor=cfg["rows"].val)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[B], bx)
    s[AS].bind(s[AS].op.axis[0], te.thread_axis("threadIdx.x"))
    return s, [A, B]


def test_a_kernel_over_the_gpus_shared_memory_is_an_invalid_configuration_as_in_tvm(workers):
    task = autotvm.task.create("test_tuning/shared_rows", args=(32,), target="cuda")
    results = {}
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=2, measure_option=_option(workers),
               callbacks=[lambda t, inputs, res: results.update((i.config["rows"].val, r) for i, r in zip(inputs, res))])
    E = autotvm.MeasureErrorNo
    assert {rows: r.error_no for rows, r in results.items()} == {4: E.NO_ERROR, 16: E.INSTANTIATION_ERROR}
    assert "invalid gpu kernel" in results[16].error and "65536 bytes of shared memory" in results[16].error
    assert tuner.best_config["rows"].val == 4
    with warnings.catch_warnings():  # the CPU runs it with a GPU's semantics (said once per process)
        warnings.simplefilter("ignore")
        f = build(*task.instantiate(tuner.best_config), target="cuda")
    a = np.random.default_rng(7).uniform(-1, 1, (32, 1024)).astype("float32")
    b = np.full(32, np.nan, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-4, atol=1e-4)


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="number must be a positive int"):
        autotvm.LocalRunner(number=0)
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        autotvm.LocalBuilder(timeout=-1)
    with pytest.raises(TypeError, match="builder is 'local' or a Builder"):
        autotvm.measure_option(builder="rpc")
    task = autotvm.task.create("tests/tutorial_matmul", args=(4, 4, 4, "float32"))
    with pytest.raises(ValueError, match="n_trial is an int >= 0"):
        autotvm.tuner.RandomTuner(task).tune(n_trial=-3)
    with pytest.raises(TypeError, match="autotvm Task"):
        autotvm.tuner.GridSearchTuner("matmul")
