"""Callbacks a tuner calls after each measured batch (TVM's ``autotvm.callback``)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.record import encode

Callback = Callable[[Any, Sequence[MeasureInput], Sequence[MeasureResult]], None]


def log_to_file(path: Any, protocol: str = "json") -> Callback:
    """Appends each measurement to the log at *path* (one line each, flushed), so that a
    tuning that stops can be resumed with ``tuner.load_history(load_from_file(path))``. *path*
    may be an open text file (``io.StringIO`` too), which is written and flushed, not closed."""
    if protocol not in ("json", "pickle"):
        raise ValueError(f"log_to_file: protocol is 'json' or 'pickle', not {protocol!r}")
    if hasattr(path, "write") and not isinstance(path, (str, os.PathLike)):  # py.path's paths write too
        def write_open(tuner: Any, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
            for inp, res in zip(inputs, results):
                path.write(encode(inp, res, protocol) + "\n")
            path.flush()
        return write_open
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"log_to_file: a file path or an open text file, got {path!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"log_to_file: the folder of {os.fspath(path)!r} does not exist; create it first")

    def write(tuner: Any, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        with open(path, "a+b") as raw:  # a line cut off by a crash stays apart from the next record
            raw.seek(0, os.SEEK_END)
            if raw.tell():
                raw.seek(-1, os.SEEK_END)
                if raw.read(1) != b"\n":
                    raw.write(b"\n")
        with open(path, "a") as f:
            for inp, res in zip(inputs, results):
                f.write(encode(inp, res, protocol) + "\n")
    return write


def progress_bar(total: int, prefix: str = "", si_prefix: str = "G", file: Any = None) -> Callback:
    """A bar of trials done out of *total* (tqdm) with the best cost and, when the task counts
    its flops, TVM's "Current/Best: x/y GFLOPS" (this batch's best and the best so far)."""
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise ValueError(f"progress_bar: total is the number of trials, an int >= 0, got {total!r}")
    try:
        from tqdm import tqdm  # optional: the [tune] extra
    except ImportError:
        raise ImportError("progress_bar needs tqdm: pip install 'tebound[tune]' (or tqdm)") from None

    scale = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[si_prefix]
    state: dict[str, Any] = {}

    def update(tuner: Any, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = tqdm(total=total, desc=prefix or tuner.task.name, unit="trial",
                                      file=file or sys.stderr, dynamic_ncols=True)
            state["start"] = time.time()
        bar.update(len(results))
        best = tuner.best_cost
        flop = tuner.task.flop
        if flop:
            # TVM's line: the best of this batch and the best so far, in FLOPS.
            costs = [r.mean for r in results if r.error_no == 0 and r.mean > 0]
            state["cur"] = flop / min(costs) / scale if costs else state.get("cur", 0.0)
            best_flops = flop / best / scale if best < float("inf") else 0.0
            bar.set_description_str(f"{prefix or tuner.task.name} Current/Best: {state['cur']:7.2f}/{best_flops:7.2f} "
                                    f"{si_prefix}FLOPS", refresh=False)
        bar.set_postfix({"best": f"{best * 1e3:.3f} ms" if best < float("inf") else "-"}, refresh=False)
        if bar.n >= total:
            bar.close()
    return update
