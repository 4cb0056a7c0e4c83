"""Run times of topi's x86 schedules against NumPy and TVM (run by hand):

    python benchmarks/bench_topi.py [--tvm DIR] [--rounds N] [--separate] [names...]

The workloads of :mod:`topi_workloads` (ResNet-18's 3x3 convolutions, a 1024 x 1024 dense, a
softmax over 1024 x 1024): ours with ``topi.x86``'s schedule on the C target (built as by
default, and with ``fast_math``), NumPy's (conv2d
as im2col and one OpenBLAS product), and TVM's own topi compute tuned by MetaSchedule with 64
trials (the libraries ``tvm_metaschedule_topi.py`` leaves in ``DIR``, loaded here when TVM is
installed: a scratch environment, see :mod:`peers`). They alternate in one process, round
after round, on the same input arrays, and the median of each is reported; ``--separate``
also times each in a process of its own. Every result is checked against NumPy's.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from peers import tvm_threads
from topi_workloads import WORKLOADS

import schedule as te
import topi
from lower import build
from lower.target import Target

#: ours as built by default (no contraction into fused multiply-adds: NumPy's results to the
#: bit), ours with fast_math (GCC contracts and reassociates, as TVM's LLVM contracts by default),
#: NumPy, TVM.
PEERS = ["ours", "ours-fast", "numpy", "tvm"]
SCHEDULES = {"conv2d": "schedule_conv2d_nchw", "dense": "schedule_dense", "softmax": "schedule_softmax"}


def _inputs(name: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, s).astype("float32") for s in WORKLOADS[name][0]]


def ours(name: str, arrays: list[np.ndarray], fast_math: bool = False) -> tuple[Callable[[], Any], np.ndarray]:
    shapes, make = WORKLOADS[name]
    placeholders = [te.placeholder(s, name=f"p{k}") for k, s in enumerate(shapes)]
    out = make(topi, te, *placeholders)
    with Target("llvm"):
        s = getattr(topi.x86, SCHEDULES[name.split("_")[0]])(out)
    f = build(s, [*placeholders, out], "c", fast_math=fast_math)
    result = np.zeros([int(d) for d in out.shape], "float32")
    return lambda: f(*arrays, result), result


def numpy_peer(name: str, arrays: list[np.ndarray]) -> tuple[Callable[[], Any], np.ndarray]:
    kind = name.split("_")[0]
    if kind == "conv2d":
        a, w = arrays
        n, c, h, wd = a.shape
        f = w.shape[0]
        flat_w = w.reshape(f, -1)

        def conv() -> np.ndarray:  # im2col: the 9 shifted views stacked, one product
            padded = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
            cols = np.stack([padded[0, :, dy:dy + h, dx:dx + wd] for dy in range(3) for dx in range(3)], axis=1)
            return (flat_w @ cols.reshape(c * 9, h * wd)).reshape(1, f, h, wd)
        return conv, None
    if kind == "dense":
        x, w = arrays
        return lambda: x @ w.T, None
    (x,) = arrays

    def softmax() -> np.ndarray:
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    return softmax, None


def tvm_library(path: pathlib.Path, arrays: list[np.ndarray],
                shape: tuple[int, ...]) -> tuple[Callable[[], Any], Any] | None:
    """A call of the ``main`` of TVM's library at *path* on *arrays*, and its output of *shape*;
    None where TVM is not installed or the library is missing."""
    tvm_threads()
    try:
        import tvm
    except ImportError:
        return None
    if not path.exists():
        return None
    f = tvm.runtime.load_module(str(path))["main"]
    dev = tvm.cpu()
    args = [tvm.runtime.tensor(a, dev) for a in arrays]
    out = tvm.runtime.empty(shape, "float32", dev)
    return (lambda: f(*args, out)), out


def tvm_peer(name: str, arrays: list[np.ndarray], folder: pathlib.Path) -> tuple[Callable[[], Any], Any] | None:
    return tvm_library(folder / f"{name}.so", arrays, numpy_peer(name, arrays)[0]().shape)


#: Seconds of calls, untimed, after a pause and before a timing: a host whose second core sleeps
#: when idle gives it back only after a few milliseconds of work (a 1.3 ms conv2d ran 3.2, 2.9,
#: 3.4, 1.9 ms in the first calls after a 0.3 s pause, then 1.3).
WARM = 0.02


def warm(run: Callable[[], Any], seconds: float = WARM) -> None:
    """Call *run* until *seconds* have passed (at least once)."""
    end = time.perf_counter() + seconds
    run()
    while time.perf_counter() < end:
        run()


def _median_ms(run: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


#: Seconds to wait before timing a peer. OpenBLAS's threads spin for about 0.2 s after each call
#: (NumPy's, or the one that computed the expected result) and meanwhile take a core: a conv2d
#: of ours timed 0.05-0.1 s after a 512 x 512 product ran 3.05 ms, against 1.42 ms 0.2 s after
#: it. Waiting times each peer on a machine its predecessor has left; ``--settle 0`` keeps the
#: contention (a user's program alternating NumPy and kernels).
SETTLE = 0.3


def alternate(made: dict[str, Any], expected: np.ndarray, rounds: int, tol: float = 1e-3,
              settle: float = SETTLE) -> dict[str, float]:
    """The median run time (ms) of each peer of *made* (name -> (run, its output, or None if run
    returns it)), each first checked against *expected*; the peers alternate round after round,
    each timed *settle* seconds after the last call of the one before, and after :func:`warm`."""
    runners: dict[str, Callable[[], Any]] = {}
    for peer, (run, result) in made.items():
        got = run() if result is None else (run(), result)[1]
        got = got.numpy() if hasattr(got, "numpy") else got
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, err_msg=peer)
        runners[peer] = run
    samples: dict[str, list[float]] = {p: [] for p in runners}
    for _ in range(rounds):  # alternating: each round times every peer once more
        for peer, run in runners.items():
            time.sleep(settle)
            warm(run)
            samples[peer].append(_median_ms(run, 5))
    return {p: statistics.median(v) for p, v in samples.items()}


def measure(name: str, who: list[str], rounds: int, folder: pathlib.Path, settle: float = SETTLE) -> dict[str, float]:
    arrays = _inputs(name)
    made = {}
    for peer in who:
        made[peer] = ours(name, arrays) if peer == "ours" else ours(name, arrays, True) if peer == "ours-fast" \
            else numpy_peer(name, arrays) if peer == "numpy" else tvm_peer(name, arrays, folder)
    return alternate({p: m for p, m in made.items() if m is not None}, numpy_peer(name, arrays)[0](), rounds,
                     settle=settle)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tvm", type=pathlib.Path, default=pathlib.Path("/tmp/tvm_ms"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--separate", action="store_true", help="also time each peer in its own process")
    parser.add_argument("--settle", type=float, default=SETTLE, help="seconds to wait before timing a peer")
    parser.add_argument("--only", help=argparse.SUPPRESS)  # one peer, printed as JSON (for --separate)
    parser.add_argument("names", nargs="*", default=list(WORKLOADS))
    args = parser.parse_args()
    if args.only:
        print(json.dumps({n: measure(n, [args.only], args.rounds, args.tvm, args.settle).get(args.only)
                          for n in args.names}))
        return
    print(f"{'workload':<16}{'ours ms':>10}{'fast-math':>10}{'NumPy ms':>10}{'TVM ms':>10}{'ours/best':>11}"
          f"{'fast/best':>11}")
    table = {n: measure(n, PEERS, args.rounds, args.tvm, args.settle) for n in args.names}
    for n, t in table.items():
        best = min(v for p, v in t.items() if not p.startswith("ours"))
        print(f"{n:<16}{t['ours']:>10.2f}{t['ours-fast']:>10.2f}{t['numpy']:>10.2f}{t.get('tvm', float('nan')):>10.2f}"
              f"{t['ours'] / best:>10.2f}x{t['ours-fast'] / best:>10.2f}x")
    if args.separate:
        print("each in its own process:")
        for peer in PEERS:
            out = subprocess.run([sys.executable, __file__, "--only", peer, "--tvm", str(args.tvm), "--rounds",
                                  str(args.rounds), "--settle", str(args.settle), *args.names],
                                 capture_output=True, text=True)
            print(f"  {peer}: {out.stdout.strip() or out.stderr.strip()[-300:]}")


if __name__ == "__main__":
    main()
