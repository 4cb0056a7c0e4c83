"""The Dask executor: jobs on a LocalCluster end as they do locally (a hang times out, a crash
costs its job), and a short tuning through it writes the same log, whose best configuration
builds equal to NumPy."""

from __future__ import annotations

import json
import math
import operator
import os
import time

import numpy as np
import pytest

from lower import build
from lower.backend.c.compile import find_compiler
from tune import DaskExecutor, NoWorkersError, autotvm

from . import templates
from .busy import BUSY

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


@pytest.fixture(scope="module")
def dask():
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None)
    with DaskExecutor(cluster=cluster) as ex:
        yield ex
    cluster.close()


def test_jobs_end_as_they_do_locally(dask):
    assert dask.size == 2
    ok, error = dask.run(math.sqrt, [(9.0,), (-1.0,)], timeout=60)
    assert (ok.status, ok.value) == ("ok", 3.0) and error.status == "error" and "ValueError" in error.value
    start = time.perf_counter()
    (hang,) = dask.run(time.sleep, [(60,)], timeout=3)
    (crash,) = dask.run(os.abort, [()], timeout=60)
    assert hang.status == "timeout" and crash.status == "crash"
    assert [r.value for r in dask.run(operator.add, [(1, 2)] * 3, timeout=60)] == [3, 3, 3]
    assert time.perf_counter() - start < 60


def test_a_tuning_on_the_cluster_logs_as_a_local_one(dask, tmp_path):
    n = 32
    task = autotvm.task.create("tests/columns_matmul", args=(n,))
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(executor=dask, timeout=BUSY),
                                    runner=autotvm.LocalRunner(number=2, repeat=2, executor=dask,
                                                                            check_correctness=True, timeout=BUSY))
    log = tmp_path / "dask.log"
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=5, measure_option=option, callbacks=[autotvm.callback.log_to_file(str(log))])
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    # TVM's keys, and the host's load (which TVM's reader skips)
    assert len(lines) == 5 and all(set(x) == {"input", "config", "result", "version", "load"} for x in lines)
    assert [x["config"]["index"] for x in lines] == list(range(5))
    assert all(x["result"][1] == 0 and len(x["result"][0]) == 2 for x in lines)
    with autotvm.apply_history_best(str(log)):
        s, args = templates.columns_matmul(n)
    rng = np.random.default_rng(0)
    a, b = rng.random((n, n)).astype("float32"), rng.random((n, n)).astype("float32")
    c = np.full((n, n), np.nan, "float32")
    build(s, args)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_one_way_to_reach_the_cluster():
    with pytest.raises(ValueError, match="exactly one"):
        DaskExecutor()


def _square(x):
    return x * x


def test_a_cluster_without_workers_says_so_at_once_and_reports_none():
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster, \
            DaskExecutor(cluster=cluster) as ex:
        assert ex.size == 0
        start = time.monotonic()
        with pytest.raises(NoWorkersError, match="has no workers"):
            ex.run(_square, [(3,)], timeout=5)
        assert time.monotonic() - start < 5


def test_the_last_worker_leaving_is_a_named_error_within_the_job_timeout():
    import threading

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, DaskExecutor(cluster=cluster) as ex:
        assert ex.size == 1
        threading.Timer(1.0, lambda: cluster.scale(0)).start()  # the last worker goes mid-run
        start = time.monotonic()
        with pytest.raises(NoWorkersError, match="no workers for"):
            ex.run(time.sleep, [(30,)], timeout=3)
        assert time.monotonic() - start < 30
