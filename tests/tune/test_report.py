"""Reading tuning logs: progress (best so far), its plot, the table of the best trials, and the
progress bar callback."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from tune import autotvm
from tune.autotvm.callback import progress_bar
from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.space import ConfigEntity, OtherOptionEntity
from tune.autotvm.task import Task

COSTS = [5e-3, None, 3e-3, 4e-3, 1e-3, 2e-3]  # None: a failed trial


def _records():
    task = Task("test_report/task", (8,))
    out = []
    for i, cost in enumerate(COSTS):
        config = ConfigEntity(i, None, {"unroll": OtherOptionEntity(i % 2)})
        res = MeasureResult(("timeout",), 7, 1.0, 0.0) if cost is None else MeasureResult((cost, cost * 1.1), 0, 1.0, 0.0)
        out.append((MeasureInput("c", task, config), res))
    return out


def test_progress_is_the_running_minimum_with_failures_as_inf():
    costs, best = autotvm.report.progress(_records())
    means = [np.inf if c is None else c * 1.05 for c in COSTS]
    np.testing.assert_allclose(costs, means)
    np.testing.assert_allclose(best, np.minimum.accumulate(means))


def test_the_plot_draws_the_best_so_far_and_saves(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "progress.png"
    ax = autotvm.report.plot_progress(_records(), path=str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    x, y = ax.lines[0].get_data()
    np.testing.assert_allclose(x, np.arange(1, 7))
    np.testing.assert_allclose(y, np.minimum.accumulate([5.25, np.inf, 3.15, 4.2, 1.05, 2.1]))
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "trials"


def test_the_table_lists_the_fastest_successful_trials():
    table = autotvm.report.top_configs(_records(), k=3, flop=2e6).splitlines()
    assert table[0] == "| rank | index | mean (ms) | std (ms) | GFLOPS | configuration |"
    assert [row.split("|")[2].strip() for row in table[2:]] == ["4", "5", "2"]
    assert table[2] == "| 1 | 4 | 1.0500 | 0.0500 | 1.90 | [('unroll', 0)] |"
    with pytest.raises(ValueError, match="positive int"):
        autotvm.report.top_configs(_records(), k=0)


def test_the_progress_bar_counts_trials_and_shows_the_best():
    pytest.importorskip("tqdm")
    records = _records()
    out = io.StringIO()
    bar = autotvm.callback.progress_bar(6, prefix="matmul", file=out)

    class Tuner:  # what the callback reads of a tuner
        task = type("T", (), {"name": "t", "flop": 2e6})()
        best_cost = float("inf")

    tuner = Tuner()
    for k in range(0, 6, 2):
        tuner.best_cost = min(r.mean for _, r in records[:k + 2])
        bar(tuner, [i for i, _ in records[k:k + 2]], [r for _, r in records[k:k + 2]])
    text = out.getvalue()
    assert "6/6" in text and "best=1.050 ms" in text
    assert f"matmul Current/Best: {2e6 / min(r.mean for _, r in records[4:6]) / 1e9:7.2f}/   1.90 GFLOPS" in text


def test_callbacks_refuse_what_would_fail_mid_tuning(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist; create it first"):
        autotvm.callback.log_to_file(str(tmp_path / "missing" / "tune.log"))
    with pytest.raises(ValueError, match="an int >= 0"):
        autotvm.callback.progress_bar(-1)
    with pytest.raises(TypeError, match="decorates a function"):
        autotvm.template("test_report/not_a_function")(3)


def test_the_progress_bar_without_tqdm_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # as if it were not installed
    with pytest.raises(ImportError, match=r"progress_bar needs tqdm: pip install 'tebound\[tune\]'"):
        progress_bar(10)
