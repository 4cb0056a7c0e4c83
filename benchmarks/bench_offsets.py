"""Run times of the C target's kernels on arrays at every mix of page offsets (run by hand):

    python benchmarks/bench_offsets.py [--peer Halide=PYTHON] [--peer TVM=PYTHON]
    python benchmarks/bench_offsets.py --sweep WORKLOAD ARGUMENT
    python benchmarks/bench_offsets.py --workload conv2d --peer TVM=PYTHON   (the workloads named so)

The tiled matmul, the blur, the conv2d and the softmax with ``te.exp`` of :mod:`bench_c_backend`,
each argument placed at each of five offsets into a page (0, 16 as NumPy's large arrays, 32,
2064, 4080): the median over all mixes and the worst mix's time (that mix found by two passes,
then timed afresh, see :func:`_worst_mix`), built as by default (an argument the
kernel updates in place is realigned for the call, see ``lower.backend.c.realign``) and with
that turned off. Each ``--peer`` times that peer's same schedules in a process of its own, run
by the Python of a scratch environment where it is installed (see :mod:`peers`), on 64-byte
aligned arrays (TVM copies arrays into its own allocations anyway), and ours at its worst mix
in turn with it in that process (the environment needs islpy and networkx for ours). ``--sweep`` moves one
argument of one workload over a page, the others fixed, to tell an offset effect from noise.

Both peers' LLVM code contracts ``a * b + c`` into fused multiply-adds (their assembly has
``vfmadd`` and no ``vmulps`` for the conv2d); our default keeps NumPy's two roundings. So ours is
also timed built with ``fp_contract=True``, the same floating-point contract as the peers, and
the ratios are given for both builds.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np
from bench_c_backend import blur, conv2d, matmul, softmax
from bench_topi import SETTLE, warm

from lower import build, nd
from lower.backend.c.compile import features_line

OFFSETS = (0, 16, 32, 2064, 4080)
#: The project and this folder: what a peer's scratch environment imports from.
PATHS = (pathlib.Path(__file__).resolve().parents[1], pathlib.Path(__file__).resolve().parent)
WORKLOADS = {"matmul 512^3, tiled": matmul, "blur 3x3, 2048^2": blur, "conv2d 64x56^2": conv2d,
             "softmax 4096x1024, te.exp": softmax}


def _placements(inputs: list, shape: tuple[int, ...]) -> list[list[np.ndarray]]:
    """The arguments of every mix of :data:`OFFSETS` for *inputs* and a zeroed output of *shape*,
    the first with every argument at offset 0. Each argument is placed once at each offset: a copy per mix would hold
    hundreds of large arrays, and the kernel's time would then depend on which got huge pages."""
    arrays = [np.asarray(x) for x in inputs] + [np.zeros(shape, np.float32)]
    copies = [[nd.at_page_offset(a, o) for o in OFFSETS] for a in arrays]
    return [[copies[a][o] for a, o in enumerate(mix)]
            for mix in itertools.product(range(len(OFFSETS)), repeat=len(arrays))]


def _best_of(run, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def chosen(words: list[str]) -> dict[str, object]:
    """The workloads whose names contain one of *words* (all of them for none)."""
    return {k: v for k, v in WORKLOADS.items() if not words or any(w in k for w in words)}


def ours(workloads: dict[str, object], rounds: int = 3) -> dict[str, tuple[float, float]]:
    """Prints ours at every mix of offsets; returns the worst (ms) of the default build and of
    the build with ``fp_contract=True`` per workload.
    Each mix's time is the median of *rounds* best-of-5 timings, the rounds going over all the
    mixes in turn, so that a moment of a busy machine does not decide one mix's time."""
    print("| workload | realigned: median, worst (ms) | not realigned: median, worst (ms) | all aligned "
          "| fp_contract=True: median, worst (ms) |")
    print("|---|---|---|---|---|")
    worst = {}
    for name, make in workloads.items():
        s, args, inputs, shape, ref, _ = make()
        expected = ref()
        f = build(s, args, target="c")
        plain = build(s, args, target="c")
        plain._realign = []
        contract = build(s, args, target="c", fp_contract=True)
        placed = _placements(inputs, shape)
        time.sleep(SETTLE)  # NumPy's BLAS threads spin for a while after the reference
        builds = (("realigned", f), ("plain", plain), ("contract", contract))
        samples: dict[str, list[list[float]]] = {key: [[] for _ in placed] for key, _ in builds}
        for r in range(rounds):
            for k, args_k in enumerate(placed):
                for key, fn in builds:
                    fn(*args_k)
                    if r == 0:
                        np.testing.assert_allclose(args_k[-1], expected, rtol=1e-4, atol=1e-5)
                    samples[key][k].append(_best_of(lambda fn=fn, args_k=args_k: fn(*args_k)))
        times = {key: [statistics.median(v) for v in per_mix] for key, per_mix in samples.items()}
        aligned = times["plain"][0]
        fresh = {key: _timed_afresh(fn, placed, _worst_mix(fn, placed, times[key]))
                 for key, fn in builds}
        cell = {key: f"{statistics.median(times[key]) * 1e3:.2f}, {fresh[key] * 1e3:.2f}" for key in fresh}
        print(f"| {name} | {cell['realigned']} | {cell['plain']} | {aligned * 1e3:.2f} | {cell['contract']} |",
              flush=True)
        worst[name] = (fresh["realigned"] * 1e3, fresh["contract"] * 1e3)
    return worst


def _worst_mix(f, mixes: list[list[np.ndarray]], first: list[float], suspects: int = 3, rounds: int = 7) -> int:
    """The index of *f*'s slowest mix: the *suspects* slowest by *first* (a median per mix) timed
    again over *rounds*, the slowest of those. The figure for it is then timed afresh
    (:func:`_timed_afresh`): the slowest of many noisy medians is slow by noise too, and its own
    median would be biased upwards."""
    slowest = sorted(range(len(mixes)), key=first.__getitem__)[-suspects:]
    again: dict[int, list[float]] = {k: [] for k in slowest}
    for _ in range(rounds):
        for k in slowest:
            again[k].append(_best_of(lambda k=k: f(*mixes[k])))
    return max(slowest, key=lambda k: statistics.median(again[k]))


def _timed_afresh(f, mixes: list[list[np.ndarray]], k: int, rounds: int = 7) -> float:
    """The median over *rounds* of *f*'s best-of-5 time (s) at mix *k*."""
    return statistics.median(_best_of(lambda: f(*mixes[k])) for _ in range(rounds))


def sweep(workload: str, argument: int, rounds: int = 3) -> None:
    """Prints the time (ms) of *workload* with its *argument*-th array at each offset from 0 to
    3840 by 256 and at :data:`OFFSETS`, the others at offset 0: an offset that aliases stands
    out of the line, where noise moves the whole line."""
    s, args, inputs, shape, _, _ = WORKLOADS[workload]()
    f = build(s, args, target="c")
    arrays = [np.asarray(x) for x in inputs] + [np.zeros(shape, np.float32)]
    offsets = sorted({*range(0, 4096, 256), *OFFSETS})
    copies = {o: nd.at_page_offset(arrays[argument], o) for o in offsets}
    base = [nd.at_page_offset(a, 0) for a in arrays]
    samples: dict[int, list[float]] = {o: [] for o in offsets}
    for _ in range(rounds):
        for o in offsets:
            placed = [*base[:argument], copies[o], *base[argument + 1:]]
            f(*placed)
            samples[o].append(_best_of(lambda placed=placed: f(*placed)))
    print(f"{workload}, argument {argument}: " + ", ".join(f"{o}: {statistics.median(v) * 1e3:.2f}"
                                                           for o, v in samples.items()))


def peer(name: str, workloads: dict[str, object], rounds: int = 15, suspects: int = 3) -> None:
    """Prints, as JSON, per workload: the median time (ms) of *name*'s schedule (checked) and
    that of ours at its worst mix of offsets, timed in turn in rounds in this process, and the
    median and quartiles of the rounds' ratios, so that the ratio does not depend on when the
    host was busy; each is timed :data:`~bench_topi.SETTLE` after the other's last call, as a
    peer's threads spin, and after :func:`~bench_topi.warm`.
    The worst mix is the slowest of the *suspects* slowest of a first pass over all mixes, timed
    again (:func:`_worst_mix`); the rounds then time it afresh."""
    out = {}
    for workload, make in workloads.items():
        s, args, inputs, shape, ref, others = make()
        run = others[name](nd.array(np.zeros(shape, np.float32)))
        if run is None:
            print(json.dumps({"error": f"{name} is not installed in {sys.executable}"}))
            return
        expected = ref()
        got = run()
        np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, "numpy") else got), expected,
                                   rtol=1e-4, atol=1e-5)
        mixes = _placements(inputs, shape)
        out[workload] = {}
        for key, f in (("ours", build(s, args, target="c")),
                       ("ours_contract", build(s, args, target="c", fp_contract=True))):
            f(*mixes[-1])
            np.testing.assert_allclose(mixes[-1][-1], expected, rtol=1e-4, atol=1e-5)
            time.sleep(SETTLE)  # NumPy's BLAS threads spin for a while after the reference
            first = [[] for _ in mixes]
            for _ in range(3):
                for k, placed in enumerate(mixes):
                    first[k].append(_best_of(lambda f=f, placed=placed: f(*placed)))
            worst = _worst_mix(f, mixes, [statistics.median(v) for v in first], suspects)
            theirs, ours_at_worst, call = [], [], functools.partial(f, *mixes[worst])
            for _ in range(rounds):
                # TVM's pool threads spin (300,000 yields) after its call, taking a core from ours.
                time.sleep(SETTLE)
                warm(run)
                theirs.append(_best_of(run))
                time.sleep(SETTLE)
                warm(call)
                ours_at_worst.append(_best_of(call))
            out[workload][key] = statistics.median(ours_at_worst) * 1e3
            out[workload]["peer" if key == "ours" else "peer_contract"] = statistics.median(theirs) * 1e3
            ratios = statistics.quantiles([a / b for a, b in zip(ours_at_worst, theirs)], n=4)
            out[workload][key + "_ratio"] = ratios[1]
            out[workload][key + "_quartiles"] = (ratios[0], ratios[2])
    print(json.dumps(out))


def _ratio(p: dict, key: str) -> str:
    """The median of the rounds' ratios of *key* and, in brackets, their quartiles."""
    low, high = p[key + "_quartiles"]
    return f"{p[key + '_ratio']:.2f} ({low:.2f}-{high:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer", action="append", default=[], metavar="NAME=PYTHON",
                        help="time peer NAME (Halide, TVM) in its own process, run by PYTHON")
    parser.add_argument("--only-peer", help=argparse.SUPPRESS)
    parser.add_argument("--workload", action="append", default=[], metavar="WORD",
                        help="time only the workloads whose names contain WORD (repeatable)")
    parser.add_argument("--sweep", nargs=2, metavar=("WORKLOAD", "ARGUMENT"),
                        help="time one argument of one workload (of WORKLOADS) at offsets 0 to 3840 by 256")
    args = parser.parse_args()
    if args.sweep:
        sweep(args.sweep[0], int(args.sweep[1]))
        return
    workloads = chosen(args.workload)
    if not workloads:
        parser.error(f"no workload's name contains {' or '.join(args.workload)}: {', '.join(WORKLOADS)}")
    if args.only_peer:
        peer(args.only_peer, workloads)
        return
    print(features_line())
    worst = ours(workloads)
    times = {}
    for spec in args.peer:
        name, _, python = spec.partition("=")
        only = [a for w in args.workload for a in ("--workload", w)]
        run = subprocess.run([python or sys.executable, __file__, "--only-peer", name, *only], capture_output=True,
                             text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(map(str, PATHS))})
        lines = run.stdout.strip().splitlines()
        times[name] = json.loads(lines[-1]) if lines else {"error": run.stderr[-300:]}
    if times:
        print("\n| workload | ours: worst of the mixes (ms) | fp_contract=True: worst (ms) | "
              + " | ".join(f"{n} (ms)" for n in times) + " | ours worst / best peer | fp_contract=True / best peer |")
        print("|---|---|---|" + "---|" * len(times) + "---|---|")
        for workload, (w, wc) in worst.items():
            got = [t[workload]["peer"] for t in times.values() if workload in t]
            cells = " | ".join(f"{t[workload]['peer']:.2f}" if workload in t else str(t.get("error", "-"))
                               for t in times.values())
            ratios = f"{w / min(got):.2f} | {wc / min(got):.2f}" if got else "- | -"
            print(f"| {workload} | {w:.2f} | {wc:.2f} | {cells} | {ratios} |")
        print("\nIn each peer's process, ours at its worst mix and the peer in turn (medians, ms), and the "
              "median of the rounds' ratios (their quartiles); ours built by default and with fp_contract=True:\n")
        print("| workload | " + " | ".join(f"ours worst / {n} | fp_contract=True / {n}" for n in times) + " |")
        print("|---|" + "---|---|" * len(times))
        for workload in worst:
            pairs = [t[workload] if workload in t else None for t in times.values()]
            print(f"| {workload} | " + " | ".join(
                f"{p['ours']:.2f} / {p['peer']:.2f}: {_ratio(p, 'ours')} | "
                f"{p['ours_contract']:.2f} / {p['peer_contract']:.2f}: {_ratio(p, 'ours_contract')}"
                if p else "- | -" for p in pairs) + " |")


if __name__ == "__main__":
    main()
