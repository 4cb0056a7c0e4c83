"""Several tasks on one budget (run by hand):

    python benchmarks/bench_task_scheduler.py [--network pair|resnet18] [--trials N]
                                              [--per-round N] [--seeds S ...]

``pair``: TVM's tune_conv2d_layer subgraph (conv2d + bias + relu, 7x7, 512 -> 512) weighted 1
and a 512^3 matmul + add weighted 2. ``resnet18``: the distinct subgraphs of ResNet-18 at batch
1 (NCHW), as TVM's tune_network tutorials extract them, each weighted by how often the network
runs it: the 3x3 convolutions of stride 1 (4, 3, 3 and 3 times), the three of stride 2 that
open a stage, the 1x1 downsampling convolutions, the 7x7 stem and the classifier. Each is
tuned by ``auto_scheduler.TaskScheduler`` with the gradient strategy and with round-robin, on
the same budget and seed. Prints each strategy's rounds per task, each task's best cost and the
objective (the weighted sum of the best costs: the network's estimated time), per seed.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from typing import Any

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


@auto_scheduler.register_workload
def conv_bn_relu(c_in, size, c_out, kernel, stride, relu):
    """A convolution with its folded batch norm (a per-channel bias) and, but for a
    downsampling branch, the relu: the subgraph TVM's relay fuses around a ResNet conv."""
    data = te.placeholder((1, c_in, size, size), name="data")
    weight = te.placeholder((c_out, c_in, kernel, kernel), name="weight")
    bias = te.placeholder((1, c_out, 1, 1), name="bias")
    out = topi.add(topi.nn.conv2d_nchw(data, weight, stride, kernel // 2, 1), bias)
    return [data, weight, bias, topi.nn.relu(out) if relu else out]


@auto_scheduler.register_workload
def dense_bias(n_in, n_out):
    x, w, b = te.placeholder((1, n_in), name="x"), te.placeholder((n_out, n_in), name="w"), \
        te.placeholder((n_out,), name="b")
    return [x, w, b, topi.add(topi.nn.dense(x, w), b)]


#: (workload, args, weight): ResNet-18's subgraphs at batch 1 and how often each runs.
RESNET18: list[tuple[Any, tuple[Any, ...], int]] = [
    (conv_bn_relu, (3, 224, 64, 7, 2, True), 1),
    (conv_bn_relu, (64, 56, 64, 3, 1, True), 4),
    (conv_bn_relu, (64, 56, 128, 3, 2, True), 1),
    (conv_bn_relu, (64, 56, 128, 1, 2, False), 1),
    (conv_bn_relu, (128, 28, 128, 3, 1, True), 3),
    (conv_bn_relu, (128, 28, 256, 3, 2, True), 1),
    (conv_bn_relu, (128, 28, 256, 1, 2, False), 1),
    (conv_bn_relu, (256, 14, 256, 3, 1, True), 3),
    (conv_bn_relu, (256, 14, 512, 3, 2, True), 1),
    (conv_bn_relu, (256, 14, 512, 1, 2, False), 1),
    (conv_bn_relu, (512, 7, 512, 3, 1, True), 3),
    (dense_bias, (512, 1000), 1),
]
NETWORKS = {"pair": [(conv2d_layer, (), 1), (matmul_add, (512,), 2)], "resnet18": RESNET18}


def run(network: str, strategy: str, trials: int, per_round: int, seed: int) -> tuple[list[int], list[float]]:
    """Tunes *network*'s tasks with *strategy*; returns each task's rounds and best cost (ms)."""
    entries = NETWORKS[network]
    tasks = [auto_scheduler.SearchTask(func=f, args=args, target="llvm") for f, args, _ in entries]
    sched = auto_scheduler.TaskScheduler(tasks, task_weights=[w for *_, w in entries], strategy=strategy, seed=seed)
    log = os.path.join(tempfile.mkdtemp(prefix="sched_"), f"{strategy}.log")
    sched.tune(auto_scheduler.TuningOptions(num_measure_trials=trials, num_measures_per_round=per_round, verbose=0,
                                            measure_callbacks=[auto_scheduler.RecordToFile(log)]))
    return list(sched.task_cts), [c * 1e3 for c in sched.best_costs]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--network", choices=sorted(NETWORKS), default="pair")
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--per-round", type=int, default=8)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args()
    os.environ.setdefault("TEBOUND_CACHE_DIR", tempfile.mkdtemp(prefix="tebound_sched_"))
    entries = NETWORKS[args.network]
    names = [f"{f.__name__}{args_}" if args_ else f.__name__ for f, args_, _ in entries]
    print(f"{args.network}: {len(entries)} tasks, {args.trials} trials, rounds of {args.per_round}")
    print("tasks (weight): " + "; ".join(f"{n} ({w})" for n, (*_, w) in zip(names, entries)))
    print("| seed | strategy | rounds per task | best cost per task (ms) | objective (ms) |")
    print("|---|---|---|---|---|")
    for seed in args.seeds:
        for strategy in ("gradient", "round-robin"):
            rounds, costs = run(args.network, strategy, args.trials, args.per_round, seed)
            objective = sum(w * c for (*_, w), c in zip(entries, costs))
            print(f"| {seed} | {strategy} | {', '.join(map(str, rounds))} | "
                  f"{', '.join(f'{c:.2f}' for c in costs)} | {objective:.2f} |", flush=True)


if __name__ == "__main__":
    main()
