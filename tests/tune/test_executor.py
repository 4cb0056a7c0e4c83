"""LocalExecutor: jobs in spawned worker processes; an error, a hang or a crash costs that job
only, and the executor goes on with fresh workers."""

from __future__ import annotations

import math
import operator
import os
import time

import pytest

from tune import LocalExecutor


@pytest.fixture(scope="module")
def executor():
    with LocalExecutor(2) as ex:
        yield ex


def test_results_come_in_the_order_of_the_jobs(executor):
    results = executor.run(operator.mul, [(k, k + 1) for k in range(7)], timeout=60)
    assert [r.status for r in results] == ["ok"] * 7
    assert [r.value for r in results] == [k * (k + 1) for k in range(7)]


def test_a_job_that_raises_reports_its_error(executor):
    ok, bad = executor.run(math.sqrt, [(4.0,), (-1.0,)], timeout=60)
    assert (ok.status, ok.value) == ("ok", 2.0)
    assert bad.status == "error" and bad.value.startswith("ValueError: math domain error")


def test_a_hanging_job_times_out_and_the_others_finish(executor):
    start = time.perf_counter()
    slow, quick, after = executor.run(time.sleep, [(60,), (0.01,), (0.01,)], timeout=3)
    assert slow.status == "timeout" and "3 s" in slow.value and 3 <= slow.seconds < 10
    assert quick.status == "ok" and after.status == "ok"
    assert time.perf_counter() - start < 30


def test_a_crashing_job_costs_only_itself(executor):
    (pid,) = executor.run(os.getpid, [()], timeout=60)
    assert pid.status == "ok" and pid.value != os.getpid()  # it ran in another process
    (crashed,) = executor.run(os.abort, [()], timeout=60)
    assert crashed.status == "crash" and "exit code" in crashed.value
    after = executor.run(operator.add, [(2, 3)] * 3, timeout=60)
    assert [(r.status, r.value) for r in after] == [("ok", 5)] * 3


@pytest.mark.parametrize("workers", [0, -1, 1.5, True])
def test_bad_worker_counts_are_refused(workers):
    with pytest.raises(ValueError, match="positive int"):
        LocalExecutor(workers)


def _local_function():
    def job():
        return 1
    return job


@pytest.mark.parametrize("fn, jobs, timeout, error, match", [
    (lambda: 1, [()], 5, TypeError, "cannot be sent to a worker process"),
    (_local_function(), [()], 5, TypeError, "top level of an importable module"),
    (operator.add, [3], 5, TypeError, "each job is a tuple"),
    (operator.add, [(1, 2)], -1, ValueError, "positive number of seconds"),
    (operator.add, [(1, 2)], "5", ValueError, "positive number of seconds"),
])
def test_jobs_a_worker_could_not_receive_are_refused_before_any_runs(executor, fn, jobs, timeout, error, match):
    with pytest.raises(error, match=match):
        executor.run(fn, jobs, timeout)
    assert [r.value for r in executor.run(operator.add, [(2, 3)], timeout=60)] == [5]
