"""The auto_scheduler's two search spaces on TVM's auto_scheduler tutorial workload (run by
hand): matmul + add at N³ (B marked ``layout_free_placeholders``), tuned through
``SearchTask.tune`` with ``SketchPolicy(params={"space": ...})`` for *trials* measurements each
(XGBModel), then the best of each, and NumPy, timed taking turns in one process::

    PYTHONPATH=. python benchmarks/bench_state_search.py [--n 1024] [--trials 64] [--spaces states knobs]
        [--logs DIR]

It prints each space's search time and the median run time of each kernel (every result
checked against NumPy's). A log already in *--logs* is timed without tuning again.
"""

from __future__ import annotations

import argparse
import pathlib
import tempfile
import time

import numpy as np
from bench_topi import alternate

import schedule as te
from lower import build
from tune import auto_scheduler
from tune.auto_scheduler.search_task import SketchPolicy, XGBModel


@auto_scheduler.register_workload
def bench_matmul_add(n: int) -> list:
    """TVM's tutorial computation: ``matmul(A, B) + C``."""
    A, B, C = (te.placeholder((n, n), name=x) for x in "ABC")
    k = te.reduce_axis((0, n), name="k")
    mm = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul",
                    attrs={"layout_free_placeholders": [B]})
    out = te.compute((n, n), lambda i, j: mm[i, j] + C[i, j], name="out")
    return [A, B, C, out]


def tune(task: auto_scheduler.SearchTask, space: str, trials: int, log: pathlib.Path) -> float:
    """Searches *space* for *trials* measurements into *log*; the wall time."""
    policy = SketchPolicy(task, XGBModel(seed=0), params={"space": space}, seed=0)
    options = auto_scheduler.TuningOptions(num_measure_trials=trials, num_measures_per_round=8, verbose=0,
                                           runner=auto_scheduler.LocalRunner(timeout=30),
                                           measure_callbacks=[auto_scheduler.RecordToFile(str(log))])
    start = time.time()
    task.tune(options, search_policy=policy)
    return time.time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--spaces", nargs="+", default=["states", "knobs"])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--logs", type=pathlib.Path, default=pathlib.Path(tempfile.mkdtemp(prefix="bench_state_")))
    args = parser.parse_args()
    args.logs.mkdir(parents=True, exist_ok=True)
    task = auto_scheduler.SearchTask(func=bench_matmul_add, args=(args.n,), target="llvm")
    rng = np.random.default_rng(0)
    a, b, c = (rng.uniform(-1, 1, (args.n, args.n)).astype("float32") for _ in range(3))
    made = {"numpy": ((lambda: a @ b + c), None)}
    for space in args.spaces:
        log = args.logs / f"{space}_{args.n}_{args.trials}.json"
        if not log.exists():
            print(f"{space}: search {tune(task, space, args.trials, log):.0f} s ({args.trials} trials)", flush=True)
        s, tensors = task.apply_best(str(log))
        f = build(s, tensors, target="llvm")
        out = np.zeros((args.n, args.n), "float32")
        made[space] = ((lambda f=f, out=out: f(a, b, c, out)), out)
    for peer, ms in alternate(made, a @ b + c, args.rounds, tol=2e-3).items():
        print(f"{peer}: {ms:.2f} ms")


if __name__ == "__main__":
    main()
