"""The tuning loop every tuner shares (TVM's ``Tuner.tune``): propose a batch of configurations,
measure it, keep the best, call the callbacks, stop after *n_trial* trials, when the space is
exhausted, or *early_stopping* trials after the last improvement.

A tuner with ``screen`` set (the auto-scheduler's, as Ansor never measures a state its rules
reject) instantiates each proposed configuration first: one the template rejects is marked
visited and costs no trial. autotvm's tuners leave it unset, so that a rejected configuration
is a failed trial, as in TVM.

Trials rank by the fastest of their repeats: another process only ever slows a run down, so
on a busy machine the fastest repeat is the nearest to the kernel's own time. A tuner with
``remeasure_top`` set (the auto-scheduler's, as Ansor and MetaSchedule do) measures its best
configurations again at the end, together, and keeps the fastest of all their runs: a good
configuration first timed while the machine was busy gets a second chance. The new runs go to
the log, where ``apply_history_best`` still ranks records by their mean, as TVM's does.

Configurations in ``first`` (the auto-scheduler's known-good tile shapes) are measured before
the tuner proposes any, batch by batch, as ordinary trials."""

from __future__ import annotations

import contextlib
import logging
import math
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from tune.autotvm.measure import MeasureBatch, MeasureInput, MeasureOption, MeasureResult, measure_option
from tune.autotvm.space import ConfigEntity, InstantiationError
from tune.autotvm.task import Task

logger = logging.getLogger("autotvm")
#: With ``screen``, the tuning stops after this many rejected configurations in a row (a space
#: the template rejects almost everywhere).
MAX_REJECTED_IN_A_ROW = 4096


class Tuner:
    """Base of the tuners: subclasses choose the order of trials (:meth:`next_batch`) and may
    learn from results (:meth:`update`)."""

    def __init__(self, task: Task) -> None:
        if not isinstance(task, Task):
            raise TypeError(f"a tuner takes an autotvm Task (autotvm.task.create(...)), got {task!r}")
        self.task = task
        self.space = task.config_space
        self.visited: set[int] = set()
        self.best_config: ConfigEntity | None = None
        self.best_cost = float("inf")
        self.best_measure_pair: tuple[MeasureInput, MeasureResult] | None = None
        self.best_iter = 0
        self.best_flops = 0.0
        self.trials = 0
        self.screen = False
        self.rejected = 0
        #: How many of the best configurations are measured again at the end (0: none).
        self.remeasure_top = 0
        #: The configurations measured by this tuning, each with its fastest cost so far.
        self.measured: dict[int, tuple[ConfigEntity, float]] = {}
        #: Configurations measured before the tuner's own choices (the auto-scheduler's
        #: known-good tile shapes, :mod:`tune.auto_scheduler.tile_hints`), in this order.
        self.first: list[ConfigEntity] = []

    # -- what subclasses provide --------------------------------------------------------------
    def has_next(self) -> bool:
        return len(self.visited) < len(self.space)

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        raise NotImplementedError

    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        """Learns from measured trials (the base tuners learn nothing)."""

    # -- the loop -----------------------------------------------------------------------------
    def load_history(self, records: Iterable[tuple[MeasureInput, MeasureResult]], min_seed_records: int = 0) -> None:
        """Marks the trials of *records* of this task as done and learns from them, so a tuning
        resumes where a log stops."""
        inputs, results = [], []
        for inp, res in records:
            if inp.task.workload != self.task.workload:
                continue
            self.visited.add(inp.config.index)
            self._keep_best(inp, res)
            inputs.append(inp)
            results.append(res)
        if inputs:
            self.update(inputs, results)

    def _keep_best(self, inp: MeasureInput, res: MeasureResult, improved_at: int | None = None) -> None:
        cost = fastest(res)
        if cost < self.best_cost:
            self.best_cost, self.best_config = cost, inp.config
            self.best_measure_pair = (inp, res)
            self.best_flops = speed(self.task, res)
            self.best_iter = self.trials if improved_at is None else improved_at

    def tune(self, n_trial: int, measure_option: MeasureOption | None = None, early_stopping: int | None = None,
             callbacks: Sequence[Callable[..., Any]] = (), si_prefix: str = "G") -> None:
        """Measures up to *n_trial* new configurations (see the module's docstring)."""
        if isinstance(n_trial, bool) or not isinstance(n_trial, int) or n_trial < 0:
            raise ValueError(f"tune: n_trial is an int >= 0, got {n_trial!r}")
        if early_stopping is not None and (not isinstance(early_stopping, int) or early_stopping < 1):
            raise ValueError(f"tune: early_stopping is a positive int or None, got {early_stopping!r}")
        option = measure_option or _default_option()
        done = in_a_row = 0
        with terminate_as_interrupt(), MeasureBatch(option, self.task) as measure:
            while done < n_trial and self.has_next():
                configs = self._first(min(measure.n_parallel, n_trial - done)) or \
                    self.next_batch(min(measure.n_parallel, n_trial - done))
                if not configs:
                    break
                if self.screen:
                    proposed, configs = len(configs), self._admitted(configs)
                    in_a_row = 0 if configs else in_a_row + proposed
                    if in_a_row >= MAX_REJECTED_IN_A_ROW:
                        logger.debug("stopped: the template rejected %d configurations in a row", in_a_row)
                        break
                    if not configs:
                        continue
                inputs = [MeasureInput(self.task.target, self.task, c) for c in configs]
                results = measure(inputs)
                for inp, res in zip(inputs, results):
                    self.visited.add(inp.config.index)
                    self.trials += 1
                    self._keep_best(inp, res)
                    self._note(inp, res)
                    logger.debug("No: %d\tcost: %s\terror: %s\tconfig: %s", self.trials,
                                 f"{res.mean * 1e3:.4f} ms" if res.error_no == 0 else "-", res.error_no, inp.config)
                done += len(results)
                self.update(inputs, results)
                for callback in callbacks:
                    callback(self, inputs, results)
                if early_stopping is not None and self.trials - self.best_iter >= early_stopping:
                    logger.debug("early stopped: no better configuration in %d trials", early_stopping)
                    break
            self._remeasure(measure, callbacks)

    def _note(self, inp: MeasureInput, res: MeasureResult) -> None:
        cost = fastest(res)
        if math.isfinite(cost):
            known = self.measured.get(inp.config.index)
            self.measured[inp.config.index] = (inp.config, cost if known is None else min(cost, known[1]))

    def _remeasure(self, measure: MeasureBatch, callbacks: Sequence[Callable[..., Any]]) -> None:
        """The best :attr:`remeasure_top` configurations measured again, in one batch; their
        new runs are logged and may change the best (no trial is counted)."""
        top = sorted(self.measured.values(), key=lambda pair: pair[1])[:self.remeasure_top]
        if len(top) < 2:
            return
        inputs = [MeasureInput(self.task.target, self.task, config) for config, _ in top]
        results = measure(inputs)
        for inp, res in zip(inputs, results):
            self._keep_best(inp, res, improved_at=self.best_iter)
            self._note(inp, res)
        for callback in callbacks:
            callback(self, inputs, results)

    def _first(self, count: int) -> list[ConfigEntity]:
        """Up to *count* of :attr:`first` not measured yet, taken off the list."""
        self.first = [c for c in self.first if c.index not in self.visited]
        taken, self.first = self.first[:count], self.first[count:]
        return taken

    def _admitted(self, configs: Sequence[ConfigEntity]) -> list[ConfigEntity]:
        """*configs* but those the template rejects, which are marked visited."""
        kept = []
        for config in configs:
            try:
                self.task.instantiate(config)
            except InstantiationError:
                self.visited.add(config.index)
                self.rejected += 1
                continue
            kept.append(config)
        return kept


def fastest(result: MeasureResult) -> float:
    """The fastest of a trial's repeats (seconds per call), or inf for a failed trial."""
    if result.error_no != 0 or not result.costs:
        return float("inf")
    return float(min(result.costs))


def speed(task: Task, result: MeasureResult) -> float:
    """A result's speed in TVM's unit: flops per second (calls per second if the task counts no
    flops), of its fastest repeat; 0 for a failed trial."""
    cost = fastest(result)
    if not math.isfinite(cost) or cost <= 0:
        return 0.0
    return (task.flop or 1.0) / cost


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While tuning, SIGTERM (``timeout``, Slurm, ``docker stop``) ends the tuning as Ctrl-C
    does: KeyboardInterrupt, so that its workers are stopped and its log is closed. A handler
    the program installed itself is left as it is."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum} (SIGTERM)")
    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _default_option() -> MeasureOption:
    return measure_option()
