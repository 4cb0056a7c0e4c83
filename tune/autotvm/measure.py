"""Measuring configurations, as TVM's ``autotvm.measure``: build in parallel, time one at a time.

The parent instantiates each configuration (a template error is that trial's
``INSTANTIATION_ERROR``), pickles its schedule, and hands it to the builder's workers (all
cores, each compile with its own timeout); compiled trials are then timed by the runner, one at
a time in one worker process, so that measurements do not disturb each other. Workers run on
an executor: :class:`~tune.executor.LocalExecutor` by default, any object with the same
``run`` method (a Dask cluster) otherwise.
"""

from __future__ import annotations

import enum
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tune.autotvm.jobs import build_job, run_job
from tune.autotvm.space import ConfigEntity, InstantiationError
from tune.autotvm.task import Task
from tune.executor import JobResult, LocalExecutor


class MeasureErrorNo(enum.IntEnum):
    """How a measurement failed (TVM's numbering)."""

    NO_ERROR = 0
    INSTANTIATION_ERROR = 1
    COMPILE_HOST = 2
    COMPILE_DEVICE = 3
    RUNTIME_DEVICE = 4
    WRONG_ANSWER = 5
    BUILD_TIMEOUT = 6
    RUN_TIMEOUT = 7
    UNKNOWN_ERROR = 8


@dataclass(frozen=True)
class MeasureInput:
    """A trial: the target, the task and the configuration."""

    target: str
    task: Task
    config: ConfigEntity


@dataclass(frozen=True)
class MeasureResult:
    """Seconds per call, one per repeat (or the error message, as TVM keeps it), the error
    number, the trial's wall time and when it ended."""

    costs: tuple[Any, ...]
    error_no: int
    all_cost: float
    timestamp: float

    @property
    def mean(self) -> float:
        """The mean cost, or inf for a failed trial."""
        if self.error_no != MeasureErrorNo.NO_ERROR or not self.costs:
            return float("inf")
        return float(np.mean(self.costs))

    @property
    def error(self) -> str | None:
        return None if self.error_no == MeasureErrorNo.NO_ERROR else str(self.costs[0]) if self.costs else "?"


def _positive(name: str, value: Any, kind: type = int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int) or value <= 0:
        raise ValueError(f"{name} must be a positive {'number' if kind is float else 'int'}, got {value!r}")


@dataclass
class LocalBuilder:
    """Compiles trials in worker processes, *n_parallel* at once (default: one per core), each
    within *timeout* seconds."""

    timeout: float = 10.0
    n_parallel: int | None = None
    executor: Any = None

    def __post_init__(self) -> None:
        _positive("LocalBuilder: timeout", self.timeout, float)
        if self.n_parallel is not None:
            _positive("LocalBuilder: n_parallel", self.n_parallel)


@dataclass
class LocalRunner:
    """Times trials in one worker process: *repeat* measurements of *number* calls each (grown
    to *min_repeat_ms*), within *timeout* seconds per trial; *cooldown_interval* seconds between
    trials. With *check_correctness*, each trial's outputs are compared with the unscheduled
    computation's; *ref_input* gives the input arrays instead of random ones."""

    number: int = 4
    repeat: int = 3
    min_repeat_ms: float = 0
    timeout: float = 10.0
    cooldown_interval: float = 0.0
    check_correctness: bool = False
    ref_input: Sequence[np.ndarray] | None = None
    enable_cpu_cache_flush: bool = False
    executor: Any = None

    def __post_init__(self) -> None:
        _positive("LocalRunner: number", self.number)
        _positive("LocalRunner: repeat", self.repeat)
        _positive("LocalRunner: timeout", self.timeout, float)
        if isinstance(self.min_repeat_ms, bool) or not isinstance(self.min_repeat_ms, (int, float)) \
                or self.min_repeat_ms < 0:
            raise ValueError(f"LocalRunner: min_repeat_ms is a number >= 0, got {self.min_repeat_ms!r}")


@dataclass
class MeasureOption:
    builder: LocalBuilder = field(default_factory=LocalBuilder)
    runner: LocalRunner = field(default_factory=LocalRunner)


def measure_option(builder: Any = "local", runner: Any = "local") -> MeasureOption:
    """TVM's ``autotvm.measure_option(builder=, runner=)``: ``"local"`` or the objects."""
    if builder == "local":
        builder = LocalBuilder()
    if runner == "local":
        runner = LocalRunner()
    if not isinstance(builder, LocalBuilder):
        raise TypeError(f"measure_option: builder is 'local' or a LocalBuilder, got {builder!r}")
    if not isinstance(runner, LocalRunner):
        raise TypeError(f"measure_option: runner is 'local' or a LocalRunner, got {runner!r}")
    return MeasureOption(builder, runner)


class MeasureBatch:
    """Measures lists of trials with *option*'s builder and runner; owns their local executors
    (close it, or use it in ``with``)."""

    def __init__(self, option: MeasureOption) -> None:
        self.option = option
        self._own: list[LocalExecutor] = []
        self.builders = option.builder.executor or self._local(option.builder.n_parallel)
        self.runners = option.runner.executor or self._local(1)
        self.n_parallel = getattr(self.builders, "size", None) or option.builder.n_parallel or 1

    def _local(self, workers: int | None) -> LocalExecutor:
        ex = LocalExecutor(workers)
        self._own.append(ex)
        return ex

    def __call__(self, inputs: Sequence[MeasureInput]) -> list[MeasureResult]:
        start = time.time()
        results: list[MeasureResult | None] = [None] * len(inputs)
        payloads: dict[int, bytes] = {}
        for i, inp in enumerate(inputs):
            try:
                s, args = inp.task.instantiate(inp.config)
                payloads[i] = pickle.dumps((s, args))
            except InstantiationError as e:
                results[i] = _failed(MeasureErrorNo.INSTANTIATION_ERROR, str(e), start)
        b, r = self.option.builder, self.option.runner
        order = sorted(payloads)
        built = self.builders.run(build_job, [(payloads[i], inputs[i].target) for i in order], b.timeout)
        for i, res in zip(order, built):
            if res.status != "ok":
                error = MeasureErrorNo.BUILD_TIMEOUT if res.status == "timeout" else MeasureErrorNo.COMPILE_HOST
                results[i] = _failed(error, f"{res.status}: {res.value}", start)
        for i in order:
            if results[i] is not None:
                continue
            if r.cooldown_interval:
                time.sleep(r.cooldown_interval)
            ref = [np.asarray(x) for x in r.ref_input] if r.ref_input is not None else None
            (res,) = self.runners.run(run_job, [(payloads[i], inputs[i].target, r.number, r.repeat,
                                                 r.min_repeat_ms, ref, r.check_correctness)], r.timeout)
            results[i] = _timed(res, start)
        return [x for x in results if x is not None]

    def close(self) -> None:
        for ex in self._own:
            ex.close()

    def __enter__(self) -> MeasureBatch:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _failed(error: MeasureErrorNo, message: str, start: float) -> MeasureResult:
    return MeasureResult((message,), int(error), time.time() - start, time.time())


def _timed(res: JobResult, start: float) -> MeasureResult:
    if res.status == "timeout":
        return _failed(MeasureErrorNo.RUN_TIMEOUT, f"timeout: {res.value}", start)
    if res.status != "ok":
        return _failed(MeasureErrorNo.RUNTIME_DEVICE, f"{res.status}: {res.value}", start)
    if res.value["wrong"]:
        return _failed(MeasureErrorNo.WRONG_ANSWER, res.value["wrong"], start)
    return MeasureResult(tuple(res.value["costs"]), int(MeasureErrorNo.NO_ERROR), time.time() - start, time.time())


def create_measure_batch(task: Task, option: MeasureOption) -> Callable[[Sequence[MeasureInput]], list[MeasureResult]]:
    """A function measuring lists of trials of *task* (TVM's name); see :class:`MeasureBatch`."""
    return MeasureBatch(option)
