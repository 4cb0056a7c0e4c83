"""The automatic scheduler against TVM's MetaSchedule and NumPy (run by hand):

    /tmp/tvmenv/bin/python benchmarks/tvm_metaschedule_topi.py --out /tmp/tvm_ms [names...]
    PYTHONPATH=. /tmp/tvmenv/bin/python benchmarks/bench_autoschedule.py [--trials 64] [--tvm DIR]
        [--logs DIR] [--features itervar|knob] [--seed N] [--separate] [names...]

The workloads of ``topi_workloads.AUTOSCHEDULE``. Ours: the auto-scheduler's space searched by
its policy (``XGBTuner`` with the evolutionary search; rejected configurations cost no trial)
for *trials* measurements, for ``"llvm -fast-math"`` by default (``--math contract``: only the
fused multiply-adds TVM's LLVM makes, ``"llvm -fp-contract=fast"``; ``--math strict``: NumPy's
roundings); the untuned default (the computation built unscheduled); NumPy; and TVM's own
compute tuned by MetaSchedule with the same trials (the libraries ``tvm_metaschedule_topi.py``
leaves in ``DIR``, with its search time; the column is empty where TVM is not installed or
the library is missing; ``--untuned`` there also builds TVM's compute unscheduled, for
MetaSchedule's tuning factor beside ours). The kernels alternate in one process on the same arrays, and every
result is checked against NumPy's; ``--separate`` also times each in a process of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from bench_topi import alternate, tvm_library
from topi_workloads import AUTOSCHEDULE

import schedule as te
import topi
from lower import build
from lower.backend.c.compile import features_line
from tune import auto_scheduler, autotvm
from tune.auto_scheduler.state_search import REMEASURE_TOP
from tune.auto_scheduler.tile_hints import hints

#: The target of each ``--math`` (passed to the processes the benchmark starts through the environment).
TARGETS = {"fast": "llvm -fast-math", "contract": "llvm -fp-contract=fast", "strict": "llvm"}


def _target() -> str:
    return TARGETS[os.environ.get("TEBOUND_BENCH_MATH", "fast")]


def _inputs(name: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, s).astype("float32") for s in AUTOSCHEDULE[name][0]]


def _tensors(name: str) -> list[Any]:
    """The inputs and the output of *name*'s computation."""
    shapes, make, _ = AUTOSCHEDULE[name]
    placeholders = [te.placeholder(s, name=f"p{k}") for k, s in enumerate(shapes)]
    return [*placeholders, make(topi, te, *placeholders)]


def _task(name: str) -> Any:
    return auto_scheduler.create(f"bench_autoschedule_{name}", _tensors(name), _target())


def tune(name: str, trials: int, log: str, features: str = "knob", seed: int = 0) -> float:
    """Searches *name*'s space for *trials* measurements into *log*, the model learning from
    *features* (the cost model's ``feature_type``), the search drawing from *seed*; the wall time."""
    task = _task(name)
    # about MetaSchedule's time per trial on CPUs (3 calls grown to 100 ms), as 5 repeats of at
    # least 20 ms: trials rank by their fastest repeat, the nearest to the kernel's own time
    # when other work loads the machine (one repeat of 100 ms averages the interruptions in)
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(timeout=60),
                                    runner=autotvm.LocalRunner(number=1, repeat=5, min_repeat_ms=20, timeout=30))
    tuner = autotvm.tuner.XGBTuner(task, feature_type=features, optimizer="evolution", seed=seed)
    tuner.screen = True
    tuner.remeasure_top = REMEASURE_TOP  # the best few measured again at the end, as SketchPolicy's search does
    start = time.time()
    tuner.first = hints(task)  # the known-good tile shapes first, as SketchPolicy's knob search does
    tuner.tune(n_trial=trials, measure_option=option, callbacks=[autotvm.callback.log_to_file(log)])
    return time.time() - start


def _ours(name: str, arrays: list[np.ndarray], log: str | None) -> tuple[Callable[[], Any], np.ndarray]:
    """The best of *log* or, without one, the untuned default."""
    if log is not None:
        s, args = auto_scheduler.apply_best(_task(name), log)
    else:
        args = _tensors(name)
        s = te.create_schedule(args[-1].op)
    f = build(s, args, target=_target())
    result = np.zeros([int(d) for d in args[-1].shape], "float32")
    return lambda: f(*arrays, result), result


def measure(name: str, who: list[str], rounds: int, log: str, folder: pathlib.Path) -> dict[str, float]:
    """The median run time (ms) of each peer, the peers alternating round after round."""
    arrays = _inputs(name)
    expected = AUTOSCHEDULE[name][2](*arrays)
    made: dict[str, Any] = {}
    for peer in who:
        if peer in ("ours", "default"):
            made[peer] = _ours(name, arrays, log if peer == "ours" else None)
        elif peer == "numpy":
            made[peer] = (lambda: AUTOSCHEDULE[name][2](*arrays)), None
        elif (library := tvm_library(folder / (f"{name}.so" if peer == "tvm" else f"{name}.untuned.so"),
                                     arrays, expected.shape)) is not None:
            made[peer] = library
    return alternate(made, expected, rounds, tol=2e-3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--tvm", type=pathlib.Path, default=pathlib.Path("/tmp/tvm_ms"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--features", default="knob", help="the cost model's feature_type (knob, the default, "
                        "as the auto-scheduler's knob search: the knobs only, nothing lowered; itervar: the knobs "
                        "and the lowered schedule's loop features)")
    parser.add_argument("--seed", type=int, default=0, help="the search's seed")
    parser.add_argument("--separate", action="store_true", help="also time each peer in its own process")
    parser.add_argument("--math", choices=sorted(TARGETS), help="floating-point contract of our kernels: fast math "
                        "(the default), multiply-add contraction only, or NumPy's roundings")
    parser.add_argument("--logs", type=pathlib.Path, help="keep the tuning logs here; a workload whose log is "
                        "there already is timed from it, not tuned again")
    parser.add_argument("--only", help=argparse.SUPPRESS)  # one peer of one workload, as JSON
    parser.add_argument("--log", help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*", default=list(AUTOSCHEDULE))
    args = parser.parse_args()
    if args.math:
        os.environ["TEBOUND_BENCH_MATH"] = args.math
    if args.only:
        print(json.dumps(measure(args.names[0], [args.only], args.rounds, args.log, args.tvm).get(args.only)))
        return
    os.environ.setdefault("TEBOUND_CACHE_DIR", tempfile.mkdtemp(prefix="tebound_autoschedule_"))
    print(f"{args.trials} trials; target {_target()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(features_line())
    print("| workload | ours: search (s) | ours (ms) | untuned (ms) | MetaSchedule: search (s) | MetaSchedule (ms) "
          "| TVM untuned (ms) | NumPy (ms) | ours / best peer | tuning factor: ours, MetaSchedule |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.names:
        folder = args.logs or pathlib.Path(tempfile.mkdtemp(prefix="autoschedule_"))
        folder.mkdir(parents=True, exist_ok=True)
        log, searched = str(folder / f"{name}.log"), folder / f"{name}.search.json"
        if not searched.exists():
            searched.write_text(json.dumps({"search_s": tune(name, args.trials, log, args.features, args.seed)}))
        search = json.loads(searched.read_text())["search_s"]
        t = measure(name, ["ours", "default", "numpy", "tvm", "tvm_untuned"], args.rounds, log, args.tvm)
        info = args.tvm / f"{name}.json"
        ms_search = json.loads(info.read_text())["search_s"] if info.exists() else float("nan")
        best = min(v for p, v in t.items() if p in ("numpy", "tvm"))
        nan = float("nan")
        factors = f"{t['default'] / t['ours']:.1f}x, {t.get('tvm_untuned', nan) / t.get('tvm', nan):.1f}x"
        print(f"| {name} | {search:.0f} | {t['ours']:.2f} | {t['default']:.2f} | {ms_search:.0f} | "
              f"{t.get('tvm', nan):.2f} | {t.get('tvm_untuned', nan):.2f} | {t['numpy']:.2f} | "
              f"{t['ours'] / best:.2f} | {factors} |", flush=True)
        if args.separate:
            alone = {}
            for peer in ("ours", "numpy", "tvm"):
                out = subprocess.run([sys.executable, __file__, "--only", peer, "--log", log, "--tvm", str(args.tvm),
                                      "--rounds", str(args.rounds), name], capture_output=True, text=True)
                alone[peer] = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr[-200:]
            print(f"  each in its own process (ms): {alone}", flush=True)


if __name__ == "__main__":
    main()
