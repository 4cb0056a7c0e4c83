"""The best measured configuration of every workload in a tuning log (TVM's
``autotvm.apply_history_best``): a dispatch context above the log's reader."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from lower.target import Target
from tune.autotvm.dispatch import DispatchContext
from tune.autotvm.record import is_open_file, load_from_file
from tune.autotvm.space import ConfigEntity


class ApplyHistoryBest(DispatchContext):
    """The configuration of least mean cost among the successful measurements of each workload
    in *records* (a log file's path, or (input, result) pairs); others go to the parent."""

    def __init__(self, records: Any) -> None:
        super().__init__()
        self.best_by_workload: dict[tuple[Any, ...], tuple[ConfigEntity, float]] = {}
        #: the same, per (target key, workload), as TVM's
        self.best_by_targetkey: dict[tuple[str, tuple[Any, ...]], tuple[Any, Any]] = {}
        if records is not None:
            self.load(records)

    def load(self, records: Any) -> None:
        """Adds *records*: a log's path or open file, (input, result) pairs, or any iterable
        of these, nested (a list of paths, ``zip`` of logs), as TVM's takes them."""
        for inp, res in _pairs(records):
            if res.error_no != 0 or not res.costs:
                continue
            cost = sum(res.costs) / len(res.costs)
            key = inp.task.workload
            if key not in self.best_by_workload or cost < self.best_by_workload[key][1]:
                self.best_by_workload[key] = (inp.config, cost)
            for target_key in _keys(inp.target):
                best = self.best_by_targetkey.get((target_key, key))
                if best is None or cost < best[1].mean:
                    self.best_by_targetkey[(target_key, key)] = (inp, res)

    def _query_inside(self, target: Any, workload: tuple[Any, ...]) -> Any:
        best = self.best_by_workload.get(workload)
        return best[0] if best is not None else None


def _keys(target: Any) -> list[str]:
    keys = getattr(target, "keys", None)
    if keys is None:
        try:
            keys = Target(str(target)).keys
        except (TypeError, ValueError):
            return []
    return list(keys)


def _is_pair(x: Any) -> bool:
    return isinstance(x, tuple) and len(x) == 2 and hasattr(x[0], "task") and hasattr(x[1], "error_no")


def _pairs(records: Any) -> Iterator[tuple[Any, Any]]:
    """The (input, result) pairs of *records* (see :meth:`ApplyHistoryBest.load`), walked with
    an explicit stack."""
    stack: list[Iterator[Any]] = [iter([records])]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
        elif _is_pair(item):
            yield item
        elif isinstance(item, (str, os.PathLike)) or is_open_file(item):
            if len(stack) > 1 and not is_open_file(item) and not os.path.isfile(item):
                raise TypeError(f"apply_history_best: each record is a (MeasureInput, MeasureResult) pair or a "
                                f"log's path; got {item!r}, which is no file")
            stack.append(iter(load_from_file(item if is_open_file(item) else os.fspath(item))))
        elif isinstance(item, Iterable) and not isinstance(item, (bytes, dict)):
            stack.append(iter(item))
        else:
            raise TypeError(f"apply_history_best: the log is a file path, an open file, (MeasureInput, "
                            f"MeasureResult) pairs, or an iterable of these; got {item!r}")


_END = object()


def apply_history_best(log: Any) -> ApplyHistoryBest:
    """TVM's ``autotvm.apply_history_best(log_file)``: inside its ``with``, templates use the
    best configuration of their workload found in *log*."""
    return ApplyHistoryBest(log)
