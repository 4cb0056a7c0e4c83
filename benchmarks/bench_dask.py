"""Tuning on a Dask cluster (run by hand: python benchmarks/bench_dask.py [trials] [n]).

TVM's auto-scheduler tutorial computation (matmul n^3 + add, default 512) searched by the
auto-scheduler's random policy for *trials* measurements (default 32), the same configurations
in the same order each time: locally (the default executor), and on a cluster of one and of
two Dask workers, each a process of its own on this machine (``LocalCluster`` with one thread
per worker). Prints the wall time of each search and the best kernel's time.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import distributed
from bench_tune import matmul_add

from tune import DaskExecutor, auto_scheduler, autotvm


def _search(task, trials: int, executor) -> tuple[float, float, list[int]]:
    """The wall time of the search, the best cost and the configurations tried."""
    kwargs = {"executor": executor} if executor is not None else {}
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(timeout=60, **kwargs),
                                    runner=autotvm.LocalRunner(number=3, repeat=3, min_repeat_ms=40, timeout=30,
                                                               **kwargs))
    log = os.path.join(tempfile.mkdtemp(prefix="dask_"), "log.json")
    tuner = autotvm.tuner.RandomTuner(task, seed=0)
    tuner.screen = True
    start = time.time()
    tuner.tune(n_trial=trials, measure_option=option, callbacks=[autotvm.callback.log_to_file(log)])
    wall = time.time() - start
    configs = [inp.config.index for inp, _ in autotvm.record.load_from_file(log)]
    return wall, tuner.best_cost, configs


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 512
    os.environ.setdefault("TEBOUND_CACHE_DIR", tempfile.mkdtemp(prefix="tebound_dask_"))
    _, args, *_ = matmul_add(n)
    task = auto_scheduler.create(f"bench_dask_matmul_add_{n}", args)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"matmul {n}^3 + add, {trials} trials; load average {load}", flush=True)
    print("| executor | workers | search (s) | per trial (s) | best (ms) |")
    print("|---|---|---|---|---|")
    wall, best, reference = _search(task, trials, None)
    print(f"| LocalExecutor | {os.cpu_count()} | {wall:.1f} | {wall / trials:.2f} | {best * 1e3:.2f} |", flush=True)
    for workers in (1, 2):
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
        with DaskExecutor(cluster=cluster) as ex:
            wall, best, configs = _search(task, trials, ex)
        cluster.close()
        assert configs == reference, "the same configurations in the same order"
        print(f"| Dask LocalCluster | {workers} | {wall:.1f} | {wall / trials:.2f} | {best * 1e3:.2f} |", flush=True)


if __name__ == "__main__":
    main()
