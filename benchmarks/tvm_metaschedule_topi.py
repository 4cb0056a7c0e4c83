"""TVM's side of ``bench_topi.py`` and ``bench_autoschedule.py``: each workload of
``topi_workloads.py`` built with TVM's own topi, tuned by TVM's MetaSchedule (64 trials) and
saved as a shared library in ``--out`` (with the search's wall time in ``<name>.json``), which
the benchmarks load and time beside ours. Run in a scratch environment with apache-tvm
(0.25 or later, whose MetaSchedule is ``tvm.s_tir.meta_schedule``), not the project's:

    python benchmarks/tvm_metaschedule_topi.py --out /tmp/tvm_ms [--trials 64] [--untuned] [names...]

``--untuned`` builds each compute unscheduled instead (``<name>.untuned.so``), TVM's starting
point for the tuning factor ``bench_autoschedule.py`` reports.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from peers import native_cpu, tvm_threads  # noqa: E402

tvm_threads()  # before TVM's runtime starts its thread pool: its tuning runs on every core
import tvm  # noqa: E402
from topi_workloads import AUTOSCHEDULE, WORKLOADS  # noqa: E402
from tvm import te, topi  # noqa: E402
from tvm.s_tir import meta_schedule as ms  # noqa: E402

#: every workload by name: bench_topi's and bench_autoschedule's
ALL = {**WORKLOADS, **{name: (shapes, make) for name, (shapes, make, _) in AUTOSCHEDULE.items()}}


def tune(name: str, out: pathlib.Path, trials: int, target: tvm.target.Target) -> None:
    shapes, make = ALL[name]
    placeholders = [te.placeholder(s, name=f"p{k}") for k, s in enumerate(shapes)]
    func = te.create_prim_func([*placeholders, make(topi, te, *placeholders)])
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    work = out / f"{name}_work"
    start = time.time()
    database = ms.tune_tir(mod=mod, target=target, work_dir=str(work), max_trials_global=trials,
                           num_trials_per_iter=16)
    sch = ms.tir_integration.compile_tir(database, mod, target)
    lib = tvm.compile(sch.mod if sch is not None else mod, target=target)
    lib.export_library(str(out / f"{name}.so"))
    search = time.time() - start
    (out / f"{name}.json").write_text(json.dumps({"trials": trials, "search_s": search}))
    print(f"{name}: tuned {trials} trials in {search:.0f} s", flush=True)


def untuned(name: str, out: pathlib.Path, target: tvm.target.Target) -> None:
    """TVM's own compute built as written, unscheduled (``<name>.untuned.so``): the start the
    tuning factor is measured from."""
    shapes, make = ALL[name]
    placeholders = [te.placeholder(s, name=f"p{k}") for k, s in enumerate(shapes)]
    func = te.create_prim_func([*placeholders, make(topi, te, *placeholders)])
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    tvm.compile(mod, target=target).export_library(str(out / f"{name}.untuned.so"))
    print(f"{name}: untuned library written", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--untuned", action="store_true", help="build the unscheduled computes only")
    parser.add_argument("names", nargs="*", default=list(WORKLOADS), help=f"of {', '.join(ALL)}")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    target = tvm.target.Target({"kind": "llvm", "mcpu": native_cpu(), "num-cores": os.cpu_count()})
    for name in args.names:
        if args.untuned:
            untuned(name, args.out, target)
        else:
            tune(name, args.out, args.trials, target)


if __name__ == "__main__":
    main()
