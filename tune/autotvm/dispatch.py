"""Which configuration a template call uses (TVM's dispatch contexts).

Contexts nest in ``with`` blocks; the innermost that knows the workload answers, and the
fallback (each knob's first choice, with a warning once per workload) answers otherwise.
:class:`ApplyHistoryBest` knows the best measured configuration of every workload in a log.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterable
from typing import Any

from tune.autotvm.space import ConfigEntity, FallbackConfigEntity


class DispatchContext:
    """A source of configurations for workloads, used inside ``with``."""

    _local = threading.local()

    @classmethod
    def current(cls) -> DispatchContext:
        stack = getattr(cls._local, "stack", None)
        if not stack:
            stack = cls._local.stack = [FallbackContext()]
        return stack[-1]

    def __init__(self) -> None:
        self._parent: DispatchContext | None = None

    def _query_inside(self, target: Any, workload: tuple[Any, ...]) -> Any:
        return None

    def query(self, target: Any, workload: tuple[Any, ...]) -> Any:
        """The configuration of *workload*: this context's, else its parent's."""
        found = self._query_inside(target, workload)
        if found is None and self._parent is not None:
            return self._parent.query(target, workload)
        return found

    def __enter__(self) -> DispatchContext:
        DispatchContext.current()  # the fallback at the bottom
        self._parent = DispatchContext._local.stack[-1]
        DispatchContext._local.stack.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        stack = DispatchContext._local.stack
        if stack and stack[-1] is self:
            stack.pop()


class ApplyConfig(DispatchContext):
    """Every workload takes *config* (how a trial instantiates its template)."""

    def __init__(self, config: Any) -> None:
        super().__init__()
        self.config = config
        self.workload: tuple[Any, ...] | None = None

    def _query_inside(self, target: Any, workload: tuple[Any, ...]) -> Any:
        self.workload = workload
        return self.config


class FallbackContext(DispatchContext):
    """Each knob's first choice, the same object for every call of a workload; warns once."""

    def __init__(self) -> None:
        super().__init__()
        self.memory: dict[tuple[Any, ...], FallbackConfigEntity] = {}
        self.silent = False

    def clear_cache(self, target: Any = None, workload: tuple[Any, ...] | None = None) -> None:
        """Forgets the fallback of *workload* (of every workload if None): it warns again."""
        if workload is None:
            self.memory.clear()
        else:
            self.memory.pop(workload, None)

    def _query_inside(self, target: Any, workload: tuple[Any, ...]) -> Any:
        if workload not in self.memory:
            if not self.silent:
                warnings.warn(f"autotvm: no configuration for workload {workload}; a fallback configuration is "
                              "used, which may be much slower (tune it, or use apply_history_best)", stacklevel=4)
            self.memory[workload] = FallbackConfigEntity()
        return self.memory[workload]


class ApplyHistoryBest(DispatchContext):
    """The configuration of least mean cost among the successful measurements of each workload
    in *records* (a log file's path, or (input, result) pairs); others go to the parent."""

    def __init__(self, records: Any) -> None:
        super().__init__()
        self.best_by_workload: dict[tuple[Any, ...], tuple[ConfigEntity, float]] = {}
        if records is not None:
            self.load(records)

    def load(self, records: Any) -> None:
        from tune.autotvm.record import load_from_file

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
