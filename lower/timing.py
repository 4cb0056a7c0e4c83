"""Timing a built function as TVM's ``time_evaluator`` does: *repeat* measurements, each the
mean of *number* calls (grown until one measurement lasts *min_repeat_ms*), after one call
that warms caches and lazy state up."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BenchmarkResult:
    """Seconds per call, one entry per repeat (TVM's ``BenchmarkResult``)."""

    results: tuple[float, ...]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.results)

    @property
    def median(self) -> float:
        return statistics.median(self.results)

    @property
    def min(self) -> float:
        return min(self.results)

    @property
    def max(self) -> float:
        return max(self.results)

    @property
    def std(self) -> float:
        return statistics.pstdev(self.results)

    def __str__(self) -> str:
        ms = [1e3 * x for x in (self.mean, self.median, self.max, self.min, self.std)]
        return ("Execution time summary:\n mean (ms)   median (ms)    max (ms)     min (ms)     std (ms)  \n"
                + "".join(f"{x:^12.4f} " for x in ms))


def time_evaluator(fn: Callable[..., Any], number: int = 10, repeat: int = 1, min_repeat_ms: float = 0,
                   cooldown_interval_ms: float = 0, sync: Callable[[], Any] | None = None
                   ) -> Callable[..., BenchmarkResult]:
    """A function that calls *fn* with its arguments as described above and returns the times.
    *sync* (a GPU's) waits for the work *fn* queued: after the warm-up and at the end of each
    batch of calls, inside its time, as TVM's ``dev.sync()``.

    :raises ValueError: for a count below 1 or a negative duration.
    """
    for name, value in (("number", number), ("repeat", repeat)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"time_evaluator: {name} must be a positive int, not {value!r}")
    for name, value in (("min_repeat_ms", min_repeat_ms), ("cooldown_interval_ms", cooldown_interval_ms)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"time_evaluator: {name} must be a number of milliseconds >= 0, not {value!r}")

    def evaluate(*args: Any) -> BenchmarkResult:
        fn(*args)  # warm-up, not timed
        if sync is not None:
            sync()
        results = []
        count = number
        for k in range(repeat):
            if k and cooldown_interval_ms:
                time.sleep(cooldown_interval_ms / 1e3)
            while True:
                elapsed = _run(fn, args, count, sync)
                if elapsed * 1e3 >= min_repeat_ms or not min_repeat_ms:
                    break
                # as TVM grows it: enough calls for the minimum, and at least 1.618 times more
                per_call = max(elapsed / count, 1e-9)
                count = max(math.ceil(min_repeat_ms / 1e3 / per_call), math.ceil(count * 1.618))
            results.append(elapsed / count)
        return BenchmarkResult(tuple(results))

    return evaluate


def _run(fn: Callable[..., Any], args: Sequence[Any], count: int, sync: Callable[[], Any] | None = None) -> float:
    start = time.perf_counter()
    for _ in range(count):
        fn(*args)
    if sync is not None:
        sync()
    return time.perf_counter() - start
