"""How an auto_scheduler search measures, with TVM's names: ``LocalBuilder`` and
``LocalRunner`` (autotvm's, with auto_scheduler's defaults), ``LocalRPCMeasureContext`` (a
local context with RPC's interface: its ``runner`` times on this machine; no tracker or
server is started), ``RecordToFile`` (TVM's lines for loop states, autotvm's for the
configuration space) and ``load_records`` (autotvm's lines)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tune.auto_scheduler.records import save_records
from tune.autotvm.callback import log_to_file
from tune.autotvm.measure import LocalBuilder as LocalBuilder
from tune.autotvm.measure import LocalRunner as _AutotvmRunner
from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.record import load_from_file


@dataclass
class LocalRunner(_AutotvmRunner):
    """autotvm's runner with auto_scheduler's defaults: 3 calls per measurement, one
    measurement, at least 100 ms."""

    number: int = 3
    repeat: int = 1
    min_repeat_ms: float = 100


class LocalRPCMeasureContext:
    """TVM's RPC measure context, local: ``runner`` times trials on this machine with the
    options given (*priority*, *n_parallel* and *device* name RPC resources and change
    nothing here)."""

    def __init__(self, priority: int = 1, n_parallel: int = 1, timeout: float = 10, number: int = 3,
                 repeat: int = 1, min_repeat_ms: float = 0, cooldown_interval: float = 0.0,
                 enable_cpu_cache_flush: bool = False, device: int = 0) -> None:
        self.runner = LocalRunner(number=number, repeat=repeat, min_repeat_ms=min_repeat_ms, timeout=timeout,
                                  cooldown_interval=cooldown_interval, enable_cpu_cache_flush=enable_cpu_cache_flush)

    def __del__(self) -> None:
        runner = getattr(self, "runner", None)
        if runner is not None:
            runner.close()


class RecordToFile:
    """A measure callback appending each trial to the log *filename* (called with the search
    policy, or the tuner, and the batch just measured)."""

    def __init__(self, filename: str = "auto_scheduler_tuning.json") -> None:
        self.filename = filename
        self._write = log_to_file(filename)

    def __call__(self, searcher: Any, inputs: Sequence[Any], results: Sequence[Any]) -> None:
        """Append the trials: loop states as TVM's lines, autotvm's trials as autotvm's."""
        if inputs and hasattr(inputs[0], "state"):
            save_records(self.filename, inputs, results)
        else:
            self._write(searcher, inputs, results)


def load_records(filename: Any) -> list[tuple[MeasureInput, MeasureResult]]:
    """The (input, result) pairs of the log *filename*."""
    return list(load_from_file(filename))
