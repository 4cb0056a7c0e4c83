"""Halide's automatic schedulers on ``bench_autoschedule.py``'s workloads: each written as a
Halide pipeline, scheduled by Adams2019, Mullapudi2016 and Li2018 (no trials: their cost
models only), compiled for this machine, checked against NumPy and timed in this process.
The shapes and NumPy references are ``topi_workloads.AUTOSCHEDULE``'s. Run in a scratch
environment with Halide (``pip install halide numpy``), not the project's:

    python benchmarks/halide_autoschedule.py [--out DIR] [names...]

Prints one table row per workload (median of 7 rounds, each at least 0.2 s of calls) and,
with ``--out``, writes ``<name>.json`` for the record. Halide's x is NumPy's last axis.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import pathlib
import statistics
import time
from collections.abc import Callable

import halide as hl
import numpy as np
from peers import halide_target
from topi_workloads import AUTOSCHEDULE

SCHEDULERS = {"Adams2019": "autoschedule_adams2019", "Mullapudi2016": "autoschedule_mullapudi2016",
              "Li2018": "autoschedule_li2018"}
F32 = hl.Float(32)


def _params(shapes: list[tuple[int, ...]]) -> list[hl.ImageParam]:
    out = []
    for k, s in enumerate(shapes):
        p = hl.ImageParam(F32, len(s), f"p{k}")
        p.set_estimates([(0, n) for n in reversed(s)])
        out.append(p)
    return out


def matmul_add(A: hl.ImageParam, B: hl.ImageParam, D: hl.ImageParam) -> hl.Func:
    i, j = hl.Var("i"), hl.Var("j")
    k = hl.RDom([(0, 1024)], "k")
    mm, out = hl.Func("matmul"), hl.Func("out")
    mm[j, i] = hl.f32(0)
    mm[j, i] += A[k.x, i] * B[j, k.x]
    out[j, i] = mm[j, i] + D[j, i]
    return out


def _conv_func(A: hl.ImageParam, W: hl.ImageParam, c: int, hw: int) -> hl.Func:
    x, y, co, n = hl.Var("x"), hl.Var("y"), hl.Var("co"), hl.Var("n")
    padded = hl.BoundaryConditions.constant_exterior(A, 0.0, [(0, hw), (0, hw), (0, c), (0, 1)])
    r = hl.RDom([(0, 3), (0, 3), (0, c)], "r")
    conv = hl.Func("conv")
    conv[x, y, co, n] = hl.f32(0)
    conv[x, y, co, n] += padded[x + r.x - 1, y + r.y - 1, r.z, n] * W[r.x, r.y, r.z, co]
    return conv


def conv2d_layer(A: hl.ImageParam, W: hl.ImageParam, b: hl.ImageParam) -> hl.Func:
    x, y, co, n = hl.Var("x"), hl.Var("y"), hl.Var("co"), hl.Var("n")
    conv = _conv_func(A, W, 512, 7)
    out = hl.Func("out")
    out[x, y, co, n] = hl.max(conv[x, y, co, n] + b[0, 0, co, 0], 0.0)
    return out


def dense_bias_relu(X: hl.ImageParam, W: hl.ImageParam, b: hl.ImageParam) -> hl.Func:
    j, i = hl.Var("j"), hl.Var("i")
    k = hl.RDom([(0, 1024)], "k")
    dense, out = hl.Func("dense"), hl.Func("out")
    dense[j, i] = hl.f32(0)
    dense[j, i] += X[k.x, i] * W[k.x, j]
    out[j, i] = hl.max(dense[j, i] + b[j], 0.0)
    return out


def batch_matmul(X: hl.ImageParam, Y: hl.ImageParam) -> hl.Func:
    j, i, b = hl.Var("j"), hl.Var("i"), hl.Var("b")
    k = hl.RDom([(0, 64)], "k")
    out = hl.Func("out")
    out[j, i, b] = hl.f32(0)
    out[j, i, b] += X[k.x, i, b] * Y[k.x, j, b]
    return out


def layer_norm(X: hl.ImageParam, g: hl.ImageParam, b: hl.ImageParam) -> hl.Func:
    c, r = hl.Var("c"), hl.Var("r")
    k = hl.RDom([(0, 768)], "k")
    mean, var, out = hl.Func("mean"), hl.Func("var"), hl.Func("out")
    mean[r] = hl.sum(X[k.x, r]) / 768
    var[r] = hl.sum((X[k.x, r] - mean[r]) * (X[k.x, r] - mean[r])) / 768
    out[c, r] = (X[c, r] - mean[r]) / hl.sqrt(var[r] + 1e-5) * g[c] + b[c]
    return out


def softmax(X: hl.ImageParam) -> hl.Func:
    c, r = hl.Var("c"), hl.Var("r")
    k = hl.RDom([(0, 1024)], "k")
    m, e, s, out = hl.Func("max"), hl.Func("exp"), hl.Func("sum"), hl.Func("out")
    m[r] = hl.maximum(X[k.x, r])
    e[c, r] = hl.exp(X[c, r] - m[r])
    s[r] = hl.sum(e[k.x, r])
    out[c, r] = e[c, r] / s[r]
    return out


#: name -> the Halide pipeline of ``topi_workloads.AUTOSCHEDULE[name]`` (whose input shapes and
#: NumPy reference are used here as they are)
PIPELINES: dict[str, Callable[..., hl.Func]] = {
    "matmul_add": matmul_add,
    "conv2d_layer": conv2d_layer,
    **{f"resnet18_conv_{c}x{hw}": functools.partial(_conv_func, c=c, hw=hw)
       for c, hw in ((64, 56), (128, 28), (256, 14), (512, 7))},
    "dense_bias_relu": dense_bias_relu,
    "batch_matmul": batch_matmul,
    "layer_norm": layer_norm,
    "softmax_4096": softmax,
}


def _timed(run: Callable[[], object]) -> float:
    """Median over 7 rounds of the mean time of one call (each round at least 0.2 s)."""
    run()
    rounds = []
    for _ in range(7):
        calls, start = 0, time.perf_counter()
        while True:
            run()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= 0.2:
                break
        rounds.append(elapsed / calls)
    return statistics.median(rounds)


def measure(name: str, scheduler: str, target: hl.Target) -> dict[str, float]:
    shapes, _, reference = AUTOSCHEDULE[name]
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-1, 1, s).astype("float32") for s in shapes]
    out_shape = reference(*arrays).shape
    params = _params(shapes)
    out_func = PIPELINES[name](*params)
    out_func.set_estimates([(0, n) for n in reversed(out_shape)])
    pipeline = hl.Pipeline(out_func)
    start = time.perf_counter()
    pipeline.apply_autoscheduler(target, hl.AutoschedulerParams(scheduler, {"parallelism": str(os.cpu_count())}))
    pipeline.compile_jit(target)
    schedule_s = time.perf_counter() - start
    for p, a in zip(params, arrays):
        p.set(hl.Buffer(a))
    out = np.zeros(out_shape, "float32")
    result = hl.Buffer(out)

    def run() -> None:
        pipeline.realize(result)
    run()
    np.testing.assert_allclose(out, reference(*arrays), rtol=2e-3, atol=2e-3)
    return {"ms": _timed(run) * 1e3, "schedule_and_compile_s": schedule_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("names", nargs="*", default=list(PIPELINES))
    args = parser.parse_args()
    here = pathlib.Path(hl.__file__).parent
    for plugin in SCHEDULERS.values():
        (found,) = [p for p in (here / "lib64" / f"lib{plugin}.so", here / "lib" / f"lib{plugin}.so") if p.exists()][:1]
        hl.load_plugin(str(found))
    target = halide_target()
    print(f"Halide {hl.__version__ if hasattr(hl, '__version__') else ''}; target {target}")
    print("| workload | " + " | ".join(f"{s} (ms)" for s in SCHEDULERS) + " |")
    print("|---|" + "---|" * len(SCHEDULERS))
    for name in args.names:
        row = {}
        for scheduler in SCHEDULERS:
            try:
                row[scheduler] = measure(name, scheduler, target)
            except Exception as err:  # a scheduler that fails on a pipeline is reported, not fatal
                row[scheduler] = {"error": f"{type(err).__name__}: {str(err)[:120]}"}
        cells = [f"{r['ms']:.3f}" if "ms" in r else r["error"] for r in row.values()]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"{name}.json").write_text(json.dumps(row))


if __name__ == "__main__":
    main()
