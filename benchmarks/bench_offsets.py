"""Run times of the C target's kernels on arrays at every mix of page offsets (run by hand):

    python benchmarks/bench_offsets.py [--tvm]

The tiled matmul, the blur and the conv2d of :mod:`bench_c_backend`, each argument placed at
each of five offsets into a page (0, 16 as NumPy's large arrays, 32, 2064, 4080): the median
and the worst over all mixes, built as by default (an argument the kernel updates in place is
realigned for the call, see ``lower.backend.c.realign``) and with that turned off. ``--tvm``
times TVM's same schedules in a process of their own (TVM copies the arrays into its own
allocations, so offsets do not reach it), from a scratch environment (see :mod:`peers`).
"""

from __future__ import annotations

import itertools
import json
import statistics
import subprocess
import sys
import time

import numpy as np
from bench_c_backend import blur, conv2d, matmul

from lower import build

OFFSETS = (0, 16, 32, 2064, 4080)
WORKLOADS = {"matmul 512^3, tiled": matmul, "blur 3x3, 2048^2": blur, "conv2d 64x56^2": conv2d}


def _at(offset: int, source: np.ndarray) -> np.ndarray:
    raw = np.empty(source.nbytes + 8192, np.uint8)
    start = -raw.ctypes.data % 4096 + offset
    out = raw[start:start + source.nbytes].view(source.dtype).reshape(source.shape)
    out[...] = source
    return out


def _best_of(run, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def ours() -> None:
    print("| workload | realigned: median, worst (ms) | not realigned: median, worst (ms) | all aligned |")
    print("|---|---|---|---|")
    for name, make in WORKLOADS.items():
        s, args, inputs, shape, ref, _ = make()
        expected = ref()
        f = build(s, args, target="c")
        plain = build(s, args, target="c")
        plain._realign = []
        arrays = [np.asarray(x) for x in inputs] + [np.zeros(shape, np.float32)]
        times: dict[str, list[float]] = {"realigned": [], "plain": []}
        aligned = None
        for mix in itertools.product(OFFSETS, repeat=len(arrays)):
            placed = [_at(o, a) for o, a in zip(mix, arrays)]
            for key, fn in (("realigned", f), ("plain", plain)):
                fn(*placed)
                times[key].append(_best_of(lambda fn=fn, placed=placed: fn(*placed)))
            np.testing.assert_allclose(placed[-1], expected, rtol=1e-4, atol=1e-5)
            if not any(mix):
                aligned = times["plain"][-1]

        def cell(v: list[float]) -> str:
            return f"{statistics.median(v) * 1e3:.2f}, {max(v) * 1e3:.2f}"
        print(f"| {name} | {cell(times['realigned'])} | {cell(times['plain'])} | {aligned * 1e3:.2f} |", flush=True)


def tvm() -> None:
    out = {}
    for name, make in WORKLOADS.items():
        _, _, inputs, shape, _, others = make()
        run = others["TVM"](np.zeros(shape, np.float32))
        if run is None:
            print("TVM is not installed here")
            return
        run()
        out[name] = statistics.median(_best_of(run) for _ in range(15)) * 1e3
    print(json.dumps(out))


if __name__ == "__main__":
    if "--only-tvm" in sys.argv:
        tvm()
    else:
        ours()
        if "--tvm" in sys.argv:
            subprocess.run([sys.executable, __file__, "--only-tvm"], check=False)
