"""Reading a tuning log: the best cost against the number of trials (a matplotlib plot), and a
table of the best configurations."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.record import load_from_file

Records = Iterable[tuple[MeasureInput, MeasureResult]]


def _records(log: Any) -> list[tuple[MeasureInput, MeasureResult]]:
    return list(load_from_file(log) if isinstance(log, str) else log)


def progress(log: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each trial's cost in seconds (inf for a failure) and the best so far, in log order."""
    costs = np.array([res.mean for _, res in _records(log)], dtype=np.float64)
    return costs, np.minimum.accumulate(costs) if costs.size else costs


def plot_progress(log: Any, path: str | None = None, ax: Any = None, label: str | None = None) -> Any:
    """Plots the best cost (ms) against trials, each trial as a dot; saves to *path* if given.
    Returns the axes (pass *ax* to draw several logs on one)."""
    import matplotlib

    if ax is None and path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    costs, best = progress(log)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    trials = np.arange(1, costs.size + 1)
    ok = np.isfinite(costs)
    ax.plot(trials, best * 1e3, drawstyle="steps-post", label=label or "best so far")
    ax.scatter(trials[ok], costs[ok] * 1e3, s=8, alpha=0.4, label=None if label else "trial")
    ax.set_xlabel("trials")
    ax.set_ylabel("cost (ms)")
    if ok.any():
        ax.set_yscale("log")
    ax.legend()
    if path is not None:
        ax.figure.savefig(path, dpi=120, bbox_inches="tight")
    return ax


def top_configs(log: Any, k: int = 10, flop: float | None = None) -> str:
    """A Markdown table of the *k* fastest successful trials: rank, index, mean and spread of the
    cost, GFLOPS when *flop* is given, and the configuration."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"top_configs: k is a positive int, got {k!r}")
    ok = sorted(((res.mean, inp, res) for inp, res in _records(log) if res.error_no == 0),
                key=lambda row: row[0])[:k]
    head = "| rank | index | mean (ms) | std (ms) |" + (" GFLOPS |" if flop else "") + " configuration |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for rank, (mean, inp, res) in enumerate(ok, 1):
        std = float(np.std(res.costs)) * 1e3
        gflops = f" {flop / mean / 1e9:.2f} |" if flop else ""
        config = repr(inp.config).rsplit(",", 2)[0]
        lines.append(f"| {rank} | {inp.config.index} | {mean * 1e3:.4f} | {std:.4f} |{gflops} {config} |")
    return "\n".join(lines)
