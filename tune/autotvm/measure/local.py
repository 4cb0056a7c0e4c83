"""Building and timing trials on this machine (TVM's ``LocalBuilder`` and ``LocalRunner``).

The builder instantiates each configuration in the parent (a template error is that trial's
``INSTANTIATION_ERROR``, as is a kernel over its GPU's limits, which TVM's builder skips as an
invalid one), pickles its schedule, and hands it to its workers (all cores, each compile with
its own timeout). The runner times the compiled trials one at a time in one
worker process, so that measurements do not disturb each other. Workers run on an executor:
:class:`~tune.executor.LocalExecutor` by default, any object with the same ``run`` method (a
Dask cluster) otherwise, or one with TVM's ``submit`` interface (:mod:`.executor`).
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tune.autotvm.jobs import build_job, run_job
from tune.autotvm.measure.executor import Executor
from tune.autotvm.measure.measure import (
    Builder,
    BuildResult,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    Runner,
    failed,
    positive,
)
from tune.autotvm.space import InstantiationError
from tune.executor import JobResult, LocalExecutor


class _OwnsWorkers:
    """A builder or runner with worker processes of its own (``_pool``), stopped by ``close``
    or when it is collected."""

    _pool: LocalExecutor

    def close(self) -> None:
        self._pool.close()

    def __del__(self) -> None:
        pool = self.__dict__.get("_pool")
        if pool is not None:
            pool.close()


@dataclass
class LocalBuilder(_OwnsWorkers, Builder):
    """Compiles trials in worker processes, *n_parallel* at once (default: one per core), each
    within *timeout* seconds."""

    timeout: float = 10.0
    n_parallel: int | None = None
    executor: Any = None
    build_kwargs: Any = field(default_factory=dict)

    def __post_init__(self) -> None:
        positive("LocalBuilder: timeout", self.timeout, float)
        if self.n_parallel is not None:
            positive("LocalBuilder: n_parallel", self.n_parallel)
        self.task = None
        self._pool = LocalExecutor(self.n_parallel)

    @property
    def workers(self) -> Any:
        return self.executor or self._pool

    def build(self, measure_inputs: Sequence[MeasureInput]) -> list[BuildResult]:
        start = time.time()
        out: list[BuildResult] = [BuildResult(None, None, None, 0.0)] * len(measure_inputs)
        payloads: dict[int, bytes] = {}
        for i, inp in enumerate(measure_inputs):
            try:
                s, args = inp.task.instantiate(inp.config)
                payloads[i] = pickle.dumps((s, args))
            except InstantiationError as e:
                out[i] = BuildResult(None, None, e, time.time() - start, None, int(MeasureErrorNo.INSTANTIATION_ERROR))
        order = sorted(payloads)
        done = self.workers.run(build_job, [(payloads[i], measure_inputs[i].target) for i in order], self.timeout)
        for i, res in zip(order, done):
            if res.status == "ok":
                out[i] = BuildResult(None, None, None, float(res.value), payloads[i])
            else:
                error = MeasureErrorNo.BUILD_TIMEOUT if res.status == "timeout" else \
                    MeasureErrorNo.INSTANTIATION_ERROR if str(res.value).startswith("InstantiationError") else \
                    MeasureErrorNo.COMPILE_HOST
                out[i] = BuildResult(None, None, f"{res.status}: {res.value}", res.seconds, None, int(error))
        return out


@dataclass
class LocalRunner(_OwnsWorkers, Runner):
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
    n_parallel: int | None = None

    def __post_init__(self) -> None:
        positive("LocalRunner: number", self.number)
        positive("LocalRunner: repeat", self.repeat)
        positive("LocalRunner: timeout", self.timeout, float)
        if isinstance(self.min_repeat_ms, bool) or not isinstance(self.min_repeat_ms, (int, float)) \
                or self.min_repeat_ms < 0:
            raise ValueError(f"LocalRunner: min_repeat_ms is a number >= 0, got {self.min_repeat_ms!r}")
        self.task = None
        self._pool = LocalExecutor(1)

    def run(self, measure_inputs: Sequence[MeasureInput], build_results: Sequence[BuildResult]) -> list[Any]:
        """One result per trial, in order: its costs, or why it failed."""
        if isinstance(self.executor, Executor):
            return self._submit(measure_inputs, build_results)
        if len(measure_inputs) != len(build_results) or not all(isinstance(b, BuildResult) for b in build_results) \
                or not all(_is_input(i) for i in measure_inputs):
            raise TypeError("LocalRunner.run: one MeasureInput and one BuildResult (a builder's build()) per trial")
        start = time.time()
        ref = [np.asarray(x) for x in self.ref_input] if self.ref_input is not None else None
        results = []
        for inp, built in zip(measure_inputs, build_results):
            if built.schedule is None:
                error = built.error_no or int(MeasureErrorNo.COMPILE_HOST)
                results.append(failed(MeasureErrorNo(error), str(built.error), start))
                continue
            if self.cooldown_interval:
                time.sleep(self.cooldown_interval)
            (res,) = (self.executor or self._pool).run(
                run_job, [(built.schedule, inp.target, self.number, self.repeat, self.min_repeat_ms, ref,
                           self.check_correctness)], self.timeout)
            results.append(_timed(res, start))
        return results

    def _submit(self, measure_inputs: Sequence[MeasureInput], build_results: Sequence[BuildResult]) -> list[Any]:
        """TVM's executor interface: one submitted call of :func:`run_trial` per trial."""
        futures = [self.executor.submit(run_trial, inp, built, number=self.number, repeat=self.repeat,
                                        min_repeat_ms=self.min_repeat_ms, ref_input=self.ref_input,
                                        check_correctness=self.check_correctness)
                   for inp, built in zip(measure_inputs, build_results)]
        start, results = time.time(), []
        for future in futures:
            try:
                results.append(future.result())
            except Exception as e:  # noqa: BLE001 - the trial's failure is its result
                results.append(failed(MeasureErrorNo.RUN_TIMEOUT, str(e), start))
        return results


def _is_input(x: Any) -> bool:
    """A trial: autotvm's MeasureInput, or another with its target, task and configuration
    (auto_scheduler's inputs of loop states)."""
    return isinstance(x, MeasureInput) or all(hasattr(x, a) for a in ("target", "task", "config"))


def run_trial(measure_input: MeasureInput, build_result: BuildResult, number: int = 4, repeat: int = 3,
              min_repeat_ms: float = 0, ref_input: Sequence[np.ndarray] | None = None,
              check_correctness: bool = False) -> MeasureResult:
    """Times one built trial in this process (what a submitted runner call does)."""
    start = time.time()
    if build_result.schedule is None:
        return failed(MeasureErrorNo(build_result.error_no or MeasureErrorNo.COMPILE_HOST), str(build_result.error),
                      start)
    try:
        value = run_job(build_result.schedule, measure_input.target, number, repeat, min_repeat_ms,
                        [np.asarray(x) for x in ref_input] if ref_input is not None else None, check_correctness)
    except Exception as e:  # noqa: BLE001 - the trial's failure is its result
        return failed(MeasureErrorNo.RUNTIME_DEVICE, f"error: {e}", start)
    return _timed(JobResult("ok", value, time.time() - start), start)


def _timed(res: JobResult, start: float) -> MeasureResult:
    if res.status == "timeout":
        return failed(MeasureErrorNo.RUN_TIMEOUT, f"timeout: {res.value}", start)
    if res.status != "ok":
        return failed(MeasureErrorNo.RUNTIME_DEVICE, f"{res.status}: {res.value}", start)
    if res.value["wrong"]:
        return failed(MeasureErrorNo.WRONG_ANSWER, res.value["wrong"], start)
    return MeasureResult(tuple(res.value["costs"]), int(MeasureErrorNo.NO_ERROR), time.time() - start, time.time())
