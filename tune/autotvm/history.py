"""The best measured configuration of every workload in a tuning log (TVM's
``autotvm.apply_history_best``): a dispatch context above the log's reader."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from tune.autotvm.dispatch import DispatchContext
from tune.autotvm.record import load_from_file
from tune.autotvm.space import ConfigEntity


class ApplyHistoryBest(DispatchContext):
    """The configuration of least mean cost among the successful measurements of each workload
    in *records* (a log file's path, or (input, result) pairs); others go to the parent."""

    def __init__(self, records: Any) -> None:
        super().__init__()
        self.best_by_workload: dict[tuple[Any, ...], tuple[ConfigEntity, float]] = {}
        if records is not None:
            self.load(records)

    def load(self, records: Any) -> None:
        if isinstance(records, (str, os.PathLike)):
            pairs: Iterable[Any] = load_from_file(os.fspath(records))
        elif isinstance(records, Iterable):
            pairs = records
        else:
            raise TypeError(f"apply_history_best: the log is a file path or an iterable of (MeasureInput, "
                            f"MeasureResult) pairs, got {records!r}")
        for pair in pairs:
            inp, res = pair if isinstance(pair, tuple) and len(pair) == 2 else (None, None)
            if not hasattr(inp, "task") or not hasattr(res, "error_no"):
                raise TypeError(f"apply_history_best: each record is a (MeasureInput, MeasureResult) pair, "
                                f"got {pair!r}")
            if res.error_no != 0 or not res.costs:
                continue
            cost = sum(res.costs) / len(res.costs)
            key = inp.task.workload
            if key not in self.best_by_workload or cost < self.best_by_workload[key][1]:
                self.best_by_workload[key] = (inp.config, cost)

    def _query_inside(self, target: Any, workload: tuple[Any, ...]) -> Any:
        best = self.best_by_workload.get(workload)
        return best[0] if best is not None else None


def apply_history_best(log: Any) -> ApplyHistoryBest:
    """TVM's ``autotvm.apply_history_best(log_file)``: inside its ``with``, templates use the
    best configuration of their workload found in *log*."""
    return ApplyHistoryBest(log)
