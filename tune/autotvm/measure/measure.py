"""What a measurement is, as TVM's ``autotvm.measure.measure`` defines it: a trial's input and
result, the error numbers, and the two roles a measurement needs, a :class:`Builder` (compile
trials) and a :class:`Runner` (time them). ``measure_option`` pairs one of each, and
``create_measure_batch`` measures lists of trials with them. Any subclass of the roles may be
passed: the tuner then builds and runs with it."""

from __future__ import annotations

import enum
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from tune.autotvm.space import ConfigEntity
from tune.autotvm.task import Task


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


class MeasureInput(NamedTuple):
    """A trial: the target, the task and the configuration (a named tuple, as TVM's)."""

    target: Any
    task: Task
    config: ConfigEntity


class MeasureResult(NamedTuple):
    """Seconds per call, one per repeat (or the error message, as TVM keeps it), the error
    number, the trial's wall time and when it ended (a named tuple, as TVM's)."""

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


@dataclass(frozen=True)
class BuildResult:
    """What a builder hands the runner for one trial: TVM's fields (*filename* of a built
    library, if the builder wrote one; *arg_info*; *error*, an exception or message, or None;
    *time_cost* in seconds), and *schedule*, the pickled ``(schedule, args)`` our runner builds
    again from its kernel cache."""

    filename: str | None
    arg_info: Any
    error: Any
    time_cost: float
    schedule: bytes | None = None
    error_no: int = int(MeasureErrorNo.NO_ERROR)


def positive(name: str, value: Any, kind: type = int) -> None:
    """Refuses *value* unless it is a positive int (or number, for *kind* float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int) or value <= 0:
        raise ValueError(f"{name} must be a positive {'number' if kind is float else 'int'}, got {value!r}")


class Builder:
    """Compiles trials: :meth:`build` returns one :class:`BuildResult` per input. Subclass it
    to build elsewhere; ``set_task`` is called before the first batch of a task."""

    def __init__(self, timeout: float = 10, n_parallel: int | None = None, build_kwargs: Any = None) -> None:
        self.timeout, self.n_parallel, self.build_kwargs = timeout, n_parallel, build_kwargs or {}
        self.task: Task | None = None

    def set_task(self, task: Task, build_option: Any = None) -> None:
        self.task = task
        self.build_kwargs = build_option or self.build_kwargs

    def build(self, measure_inputs: Sequence[MeasureInput]) -> list[BuildResult]:
        raise NotImplementedError(f"{type(self).__name__}.build(measure_inputs) is not written")

    def close(self) -> None:
        """Releases what the builder started (worker processes)."""


class Runner:
    """Times built trials: :meth:`run` returns one :class:`MeasureResult` per input. Subclass
    it to time elsewhere (or not at all, as TVM's tests' ``DummyRunner``)."""

    def __init__(self, timeout: float = 5, n_parallel: int | None = None) -> None:
        self.timeout, self.n_parallel = timeout, n_parallel
        self.task: Task | None = None

    def set_task(self, task: Task) -> dict[str, Any]:
        self.task = task
        return {}

    def get_build_kwargs(self) -> dict[str, Any]:
        """What the builder needs to know about the runner's device (nothing, here)."""
        return {}

    def run(self, measure_inputs: Sequence[MeasureInput], build_results: Sequence[BuildResult]) -> list[MeasureResult]:
        raise NotImplementedError(f"{type(self).__name__}.run(measure_inputs, build_results) is not written")

    def close(self) -> None:
        """Releases what the runner started (worker processes)."""


@dataclass
class MeasureOption:
    """A builder and a runner (``measure_option["runner"]`` reads as TVM's dict does)."""

    builder: Builder
    runner: Runner

    def __getitem__(self, key: str) -> Any:
        if key not in ("builder", "runner"):
            raise ValueError(f"measure_option has 'builder' and 'runner', not {key!r}")
        return getattr(self, key)


def failed(error: MeasureErrorNo, message: str, start: float) -> MeasureResult:
    """The result of a trial that failed with *error*."""
    return MeasureResult((message,), int(error), time.time() - start, time.time())


class MeasureBatch:
    """Measures lists of trials of a task with *option*'s builder and runner. Used in ``with``,
    it closes what they started when the block ends by an exception (Ctrl-C, SIGTERM); after a
    tuning that ends normally their worker processes stay up for the next task measured with
    the same option (a second each to start), until the builder and runner are closed or
    collected."""

    def __init__(self, option: MeasureOption, task: Task | None = None) -> None:
        self.option = option
        if task is not None:
            option.builder.set_task(task, option.runner.get_build_kwargs())
            option.runner.set_task(task)
        workers = getattr(option.builder, "workers", None)
        self.n_parallel = getattr(workers, "size", None) or option.builder.n_parallel or 1

    def __call__(self, inputs: Sequence[MeasureInput]) -> list[MeasureResult]:
        built = self.option.builder.build(inputs)
        return list(self.option.runner.run(inputs, built))

    def close(self) -> None:
        self.option.builder.close()
        self.option.runner.close()

    def __enter__(self) -> MeasureBatch:
        return self

    def __exit__(self, kind: Any, *exc: Any) -> None:
        if kind is not None:
            self.close()


def create_measure_batch(task: Task, option: MeasureOption) -> MeasureBatch:
    """A function measuring lists of trials of *task* (TVM's name); see :class:`MeasureBatch`."""
    return MeasureBatch(option, task)
