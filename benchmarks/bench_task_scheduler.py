"""Several tasks on one budget (run by hand: python benchmarks/bench_task_scheduler.py [trials]):
TVM's tune_conv2d_layer subgraph (conv2d + bias + relu, 7x7, 512 -> 512) weighted 1 and a
512^3 matmul + add weighted 2, tuned together by ``auto_scheduler.TaskScheduler`` with the
gradient strategy and with round-robin, rounds of 8 trials. Prints each strategy's rounds per
task, each task's best cost and the objective (the weighted sum of the best costs).
"""

from __future__ import annotations

import os
import sys
import tempfile

import schedule as te
import topi
from tune import auto_scheduler


@auto_scheduler.register_workload
def conv2d_layer():
    data, kernel = te.placeholder((1, 512, 7, 7), name="data"), te.placeholder((512, 512, 3, 3), name="kernel")
    bias = te.placeholder((1, 512, 1, 1), name="bias")
    return [data, kernel, bias, topi.nn.relu(topi.add(topi.nn.conv2d_nchw(data, kernel, 1, 1, 1), bias))]


@auto_scheduler.register_workload
def matmul_add(n):
    A, B, C = (te.placeholder((n, n), name=x) for x in "ABC")
    k = te.reduce_axis((0, n), name="k")
    mm = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")
    return [A, B, C, te.compute((n, n), lambda i, j: mm[i, j] + C[i, j], name="out")]


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    os.environ.setdefault("TEBOUND_CACHE_DIR", tempfile.mkdtemp(prefix="tebound_sched_"))
    weights = [1, 2]
    print("| strategy | rounds (conv, matmul) | best conv (ms) | best matmul (ms) | objective (ms) |")
    print("|---|---|---|---|---|")
    for strategy in ("gradient", "round-robin"):
        tasks = [auto_scheduler.SearchTask(func=conv2d_layer, args=(), target="llvm"),
                 auto_scheduler.SearchTask(func=matmul_add, args=(512,), target="llvm")]
        sched = auto_scheduler.TaskScheduler(tasks, task_weights=weights, strategy=strategy, seed=0)
        log = os.path.join(tempfile.mkdtemp(prefix="sched_"), f"{strategy}.log")
        sched.tune(auto_scheduler.TuningOptions(num_measure_trials=trials, num_measures_per_round=8, verbose=0,
                                                measure_callbacks=[auto_scheduler.RecordToFile(log)]))
        costs = [c * 1e3 for c in sched.best_costs]
        objective = sum(w * c for w, c in zip(weights, costs))
        print(f"| {strategy} | {sched.task_cts[0]}, {sched.task_cts[1]} | {costs[0]:.2f} | {costs[1]:.2f} | "
              f"{objective:.2f} |", flush=True)


if __name__ == "__main__":
    main()
