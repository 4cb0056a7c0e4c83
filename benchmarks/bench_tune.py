"""Tuning without a template (run by hand: python benchmarks/bench_tune.py [trials] [workloads...]
[--features=schedule|explain|knob] [--optimizer=sa|evolution] [--fast-math]).

For the matmul 512, conv2d, softmax and blur of bench_c_backend: the auto-scheduler's space
searched by XGBTuner for *trials* measurements (default 200), against the hand schedules of
bench_c_backend and TVM's default schedule (no scheduling at all, built by TVM's llvm target,
where TVM is installed: a scratch environment, see :mod:`peers`). As the auto-scheduler's
policy does, configurations the sketch rejects cost no trial. ``--fast-math`` tunes and builds
for ``"llvm -fast-math"`` (fused multiply-adds, as TVM's LLVM contracts). Prints the trials, the wall
time of the search, and the run times: ours called in turn, TVM's apart (its thread pool spins
on after its runs and slowed whatever ran next).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import bench_c_backend as b
import numpy as np
import peers

import schedule as te
import topi
from lower import build, nd
from lower.backend.c.compile import features_line
from topi import testing as topi_ref
from tune import auto_scheduler, autotvm

#: Each workload: its maker in bench_c_backend and the hand schedules to compare with.
WORKLOADS = {
    "matmul": ("matmul", ["matmul", "matmul_packed"]),
    "conv2d": ("conv2d", ["conv2d"]),
    "softmax": ("softmax_rfactor", ["softmax", "softmax_rfactor"]),
    "blur": ("blur", ["blur", "blur_strips"]),
    # TVM's auto-scheduler tutorial: a 1024^3 matmul, then an add (no hand schedule here)
    "matmul_add": ("matmul_add", []),
    # TVM's tune_conv2d_layer tutorial: the last ResNet-50 conv (7x7, 512 -> 512, 3x3) + bias + relu
    "conv2d_layer": ("conv2d_layer", []),
}


def matmul_add(n: int = 1024):
    """The computation of TVM's auto-scheduler tutorial (``matmul_add``), with NumPy's result."""
    A, B, D = (te.placeholder((n, n), name=x) for x in "ABC")
    k = te.reduce_axis((0, n), name="k")
    mm = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")
    out = te.compute((n, n), lambda i, j: mm[i, j] + D[i, j], name="out")
    rng = np.random.default_rng(1)
    a, bb, d = (nd.array(rng.random((n, n)).astype("float32")) for _ in range(3))
    return None, [A, B, D, out], [a, bb, d], (n, n), lambda: a @ bb + d, {}


def blur_strips():
    return b.blur(rows=32, cols=2048)


def conv2d_layer():
    """The computation of TVM's tune_conv2d_layer tutorial, with NumPy's result (im2col)."""
    data, kernel = te.placeholder((1, 512, 7, 7), name="data"), te.placeholder((512, 512, 3, 3), name="kernel")
    bias = te.placeholder((1, 512, 1, 1), name="bias")
    out = topi.nn.relu(topi.add(topi.nn.conv2d_nchw(data, kernel, 1, 1, 1), bias))
    rng = np.random.default_rng(2)
    d, w, bb = (nd.array(rng.uniform(-1, 1, shape).astype("float32")) for shape in
                ((1, 512, 7, 7), (512, 512, 3, 3), (1, 512, 1, 1)))
    return None, [data, kernel, bias, out], [d, w, bb], (1, 512, 7, 7), \
        lambda: np.maximum(topi_ref.conv2d_nchw_python(d, w, 1, 1) + bb, 0), {}


def _make(name: str):
    if name in ("matmul_add", "conv2d_layer"):
        return globals()[name]()
    return blur_strips() if name == "blur_strips" else getattr(b, name)()


def main() -> None:
    options = [a for a in sys.argv[1:] if a.startswith("--")]
    positional = [a for a in sys.argv[1:] if not a.startswith("--")]
    features = next((a.split("=", 1)[1] for a in options if a.startswith("--features=")), "schedule")
    optimizer = next((a.split("=", 1)[1] for a in options if a.startswith("--optimizer=")), "sa")
    trials = int(positional[0]) if positional else 200
    fast = "--fast-math" in options
    target = "llvm -fast-math" if fast else "c"
    chosen = positional[1:] or list(WORKLOADS)
    os.environ.setdefault("TEBOUND_CACHE_DIR", tempfile.mkdtemp(prefix="tebound_tune_"))
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; features: {features}; "
          f"optimizer: {optimizer}; target: {target}")
    print(features_line())
    print("| workload | trials | search (s) | tuned (ms) | hand schedules (ms) | tuned / best hand "
          "| TVM default (ms) |")
    print("|---|---|---|---|---|---|---|")
    for name in chosen:
        maker, hands = WORKLOADS[name]
        _, args, inputs, shape, ref, _ = _make(maker)
        task = auto_scheduler.create(f"bench_{name}", args, target)
        log = os.path.join(tempfile.mkdtemp(prefix="tune_"), f"{name}.log")
        option = autotvm.measure_option(builder=autotvm.LocalBuilder(timeout=60),
                                        runner=autotvm.LocalRunner(number=3, repeat=3, min_repeat_ms=40, timeout=30))
        start = time.time()
        tuner = autotvm.tuner.XGBTuner(task, feature_type=features, optimizer=optimizer, seed=0)
        tuner.screen = True
        tuner.tune(n_trial=trials, measure_option=option, callbacks=[autotvm.callback.log_to_file(log)])
        search = time.time() - start
        s, a = auto_scheduler.apply_best(task, log)
        tuned = build(s, a, target=target)
        out = nd.array(np.full(shape, np.nan, "float32"))
        tuned(*inputs, out)
        np.testing.assert_allclose(out, ref(), rtol=1e-4, atol=1e-3 if name == "conv2d_layer" else 1e-6)
        runners = {"tuned": lambda f=tuned, out=out, inputs=inputs: f(*inputs, out)}
        for hand in hands:
            hs, hargs, _, _, _, _ = _make(hand)
            f = build(hs, hargs, target="c")  # the same arrays: their page offsets decide 4K aliasing
            runners[hand] = lambda f=f, out=out, inputs=inputs: f(*inputs, out)
        med = b.interleaved_medians(runners, 60)
        default = peers.tvm_default(name, inputs, nd.empty(shape, "float32"))
        if default is not None:  # apart: TVM's pool keeps spinning after its long runs
            med.update(b.alternating_medians({"TVM default": default}, rounds=1, runs=5))
        best_hand = min((med[h] for h in hands), default=float("nan"))
        hand_text = ", ".join(f"{h} {med[h] * 1e3:.2f}" for h in hands) or "-"
        tvm_text = f"{med['TVM default'] * 1e3:.2f}" if "TVM default" in med else "-"
        print(f"| {name} | {tuner.trials} | {search:.0f} | {med['tuned'] * 1e3:.2f} | {hand_text} | "
              f"{med['tuned'] / best_hand:.2f} | {tvm_text} |", flush=True)
        print(f"  best configuration: {tuner.best_config}")
        print(autotvm.report.top_configs(log, k=3))
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
