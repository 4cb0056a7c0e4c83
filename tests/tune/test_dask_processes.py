"""The Dask executor on worker processes, as a cluster runs it: a ``LocalCluster`` with its
default worker processes, and a scheduler and two workers started from the command line
(``python -m dask scheduler`` / ``worker``). Jobs end as they do locally (a hang times out, a
crash costs its job), a tuning logs what a local one logs, and a tuning whose worker is killed
finishes on the other."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import lower
from lower.backend.c.compile import find_compiler
from tune import DaskExecutor, autotvm

from . import templates

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


class _Cluster:
    """A scheduler and *workers* workers, each its own process (no nanny: a killed worker
    stays dead), on 127.0.0.1."""

    def __init__(self, folder, workers: int) -> None:
        self.file = str(folder / "scheduler.json")
        # the workers import what this process imports, as a cluster's hosts have the project
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env, "start_new_session": True}
        self.scheduler = subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                                           "--port", "0", "--no-dashboard", "--scheduler-file", self.file], **quiet)
        self.workers = [subprocess.Popen([sys.executable, "-m", "dask", "worker", "--scheduler-file", self.file,
                                          "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"],
                                         **quiet) for _ in range(workers)]
        deadline = time.monotonic() + 60
        while not os.path.exists(self.file) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written whole
        with open(self.file) as f:
            self.address = json.load(f)["address"]

    def executor(self) -> DaskExecutor:
        ex = DaskExecutor(self.address)
        ex.client.wait_for_workers(len(self.workers), timeout=60)
        return ex

    def close(self) -> None:
        for p in [*self.workers, self.scheduler]:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(10)


@pytest.fixture
def cluster(tmp_path):
    c = _Cluster(tmp_path, workers=2)
    yield c
    c.close()


def _jobs_end_as_they_do_locally(ex: DaskExecutor) -> None:
    ok, error = ex.run(math.sqrt, [(9.0,), (-1.0,)], timeout=60)
    assert (ok.status, ok.value) == ("ok", 3.0) and error.status == "error" and "ValueError" in error.value
    start = time.perf_counter()
    (hang,) = ex.run(time.sleep, [(60,)], timeout=3)
    (crash,) = ex.run(os.abort, [()], timeout=60)
    assert hang.status == "timeout" and crash.status == "crash"
    assert [r.value for r in ex.run(math.factorial, [(5,)] * 4, timeout=60)] == [120] * 4
    assert time.perf_counter() - start < 60


def test_jobs_on_a_local_cluster_of_worker_processes():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
    try:
        with DaskExecutor(cluster=cluster) as ex:
            assert ex.size == 2
            _jobs_end_as_they_do_locally(ex)
    finally:
        cluster.close()


def _option(executor, min_repeat_ms):
    builder = autotvm.LocalBuilder(executor=executor) if executor else autotvm.LocalBuilder()
    runner = autotvm.LocalRunner(number=2, repeat=2, min_repeat_ms=min_repeat_ms, executor=executor,
                                 check_correctness=True)
    return autotvm.measure_option(builder=builder, runner=runner)


def _tune(path, executor, trials, callbacks=(), min_repeat_ms=0):
    task = autotvm.task.create("tests/columns_matmul", args=(32,))
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=trials, measure_option=_option(executor, min_repeat_ms),
               callbacks=[autotvm.callback.log_to_file(str(path)), *callbacks])
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    # what does not depend on the machine's timings: the trials, their configurations, errors
    return [(x["config"], x["result"][1], len(x["result"][0])) for x in lines]


def _best_computes_the_product(path) -> None:
    with autotvm.apply_history_best(str(path)):
        s, args = templates.columns_matmul(32)
    rng = np.random.default_rng(0)
    a, b = rng.random((32, 32)).astype("float32"), rng.random((32, 32)).astype("float32")
    c = np.full((32, 32), np.nan, "float32")
    lower.build(s, args)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_a_scheduler_and_two_worker_processes(cluster, tmp_path):
    with cluster.executor() as ex:
        assert ex.size == 2
        _jobs_end_as_they_do_locally(ex)
        remote = _tune(tmp_path / "remote.log", ex, 6)
    local = _tune(tmp_path / "local.log", None, 6)
    assert remote == local and all(err == 0 for _, err, _ in remote)
    _best_computes_the_product(tmp_path / "remote.log")


def test_a_tuning_finishes_on_the_remaining_worker_when_one_is_killed(cluster, tmp_path):
    killed = []

    def kill():
        cluster.workers[0].kill()
        killed.append(time.monotonic())

    def kill_soon(tuner, inputs, results):  # in the middle of the next batch (a trial runs 0.4 s)
        if tuner.trials == 2:
            threading.Timer(0.5, kill).start()

    with cluster.executor() as ex:
        logged = _tune(tmp_path / "killed.log", ex, 8, [kill_soon], min_repeat_ms=200)
        ended = time.monotonic()
        assert len(ex.client.nthreads()) == 1  # the scheduler saw the worker go
    assert killed and killed[0] < ended - 0.5  # during the tuning
    assert len(logged) == 8 and all(err == 0 for _, err, _ in logged)
    assert [c["index"] for c, _, _ in logged] == list(range(8))
    _best_computes_the_product(tmp_path / "killed.log")
