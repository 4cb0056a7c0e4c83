"""Several tasks tuned together on one trial budget (TVM's ``auto_scheduler.TaskScheduler``):
the subgraphs of a network, each a :class:`SearchTask`, weighted by how often the network runs
them.

Every task first gets a round of trials. Then, round after round, the budget goes to the task
whose next round should lower the objective most (``strategy="gradient"``, Ansor's rule) or to
the tasks in turn (``"round-robin"``). The objective is the weighted sum of the tasks' best
costs unless *objective_func* says otherwise. A task's expected gain per round mixes what its
last rounds gained (the backward difference over *backward_window_size* rounds) and an
optimistic forward estimate (its best cost shrinking as 1 / rounds), in the proportion *alpha*;
the chain rule through the objective weights it. A task whose space is exhausted, or that found
nothing better in *per_task_early_stopping* trials, gets no more rounds.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tune.auto_scheduler.measure import load_records
from tune.auto_scheduler.search_task import (
    RandomModel,
    SearchTask,
    SketchPolicy,
    TuningOptions,
    XGBModel,
    report_progress,
)
from tune.auto_scheduler.state_search import StateSearch
from tune.autotvm.measure import measure_option
from tune.autotvm.tuner import Tuner

STRATEGIES = ("gradient", "round-robin")


class TaskScheduler:
    """See the module. *callbacks* may have ``pre_tune(scheduler, task_id)`` and
    ``post_tune(scheduler, task_id)``; ``load_log_file`` resumes every task from a log; *seed*
    makes the tuners' and the ties' choices repeatable. ``load_model_file``, *beta* and *gamma*
    are TVM's and change nothing here."""

    def __init__(self, tasks: Sequence[SearchTask], task_weights: Sequence[float] | None = None,
                 objective_func: Callable[[list[float]], float] | None = None, strategy: str = "gradient",
                 load_model_file: str | None = None, load_log_file: str | None = None, alpha: float = 0.2,
                 beta: float = 2, gamma: float = 0.5, backward_window_size: int = 3,
                 callbacks: Sequence[Any] | None = None, seed: int | None = 0) -> None:
        tasks = list(tasks) if isinstance(tasks, (list, tuple)) else tasks
        if not isinstance(tasks, list) or not tasks or not all(isinstance(t, SearchTask) for t in tasks):
            raise TypeError(f"TaskScheduler: tasks is a non-empty list of SearchTask, got {tasks!r}")
        weights = [1.0] * len(tasks) if task_weights is None else [float(w) for w in task_weights]
        if len(weights) != len(tasks) or any(not math.isfinite(w) or w < 0 for w in weights):
            raise ValueError(f"TaskScheduler: task_weights are {len(tasks)} finite numbers >= 0, got {task_weights!r}")
        if strategy not in STRATEGIES:
            raise ValueError(f"TaskScheduler: strategy is one of {STRATEGIES}, got {strategy!r}")
        if objective_func is not None and not callable(objective_func):
            raise TypeError(f"TaskScheduler: objective_func is a function of the list of costs, got {objective_func!r}")
        if isinstance(backward_window_size, bool) or not isinstance(backward_window_size, int) \
                or backward_window_size < 1:
            raise ValueError(f"TaskScheduler: backward_window_size is an int >= 1, got {backward_window_size!r}")
        if not 0 <= alpha <= 1:
            raise ValueError(f"TaskScheduler: alpha is in [0, 1], got {alpha!r}")
        self.tasks, self.task_weights, self.strategy = tasks, weights, strategy
        self.objective_func = objective_func or (lambda costs: sum(w * c for w, c in zip(self.task_weights, costs)))
        self.load_log_file, self.alpha, self.window = load_log_file, alpha, backward_window_size
        self.callbacks = list(callbacks or [])
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        n = len(tasks)
        #: Each task's best cost (seconds; inf before any success), rounds, and best cost after each round.
        self.best_costs = [math.inf] * n
        self.task_cts = [0] * n
        self.task_costs_history: list[list[float]] = [[] for _ in range(n)]
        #: Trials measured so far, over all tasks.
        self.ct = 0
        self.dead: set[int] = set()
        self.tuners: list[Tuner] = []

    def tune(self, tune_option: TuningOptions, search_policy: str = "default", search_policy_params: Any = None,
             adaptive_training: bool = False, per_task_early_stopping: int | None = None) -> None:
        """Spend *tune_option*'s trials over the tasks (see the module)."""
        if not isinstance(tune_option, TuningOptions):
            raise TypeError(f"TaskScheduler.tune: takes TuningOptions, got {tune_option!r}")
        if per_task_early_stopping is not None and (isinstance(per_task_early_stopping, bool) or not isinstance(
                per_task_early_stopping, int) or per_task_early_stopping < 1):
            raise ValueError(f"TaskScheduler.tune: per_task_early_stopping is a positive int or None, got "
                             f"{per_task_early_stopping!r}")
        if search_policy not in ("default", "sketch.xgb", "sketch.random"):
            raise ValueError(f"TaskScheduler.tune: search_policy is 'default', 'sketch.xgb' or 'sketch.random', got "
                             f"{search_policy!r}")
        use_model = search_policy != "sketch.random" and importlib.util.find_spec("xgboost") is not None
        self.tuners = []
        for i, task in enumerate(self.tasks):
            model = XGBModel() if use_model else RandomModel()
            policy = SketchPolicy(task, model, params=search_policy_params,
                                  seed=None if self.seed is None else self.seed + i)
            if policy.space == "states":
                tuner: Any = StateSearch(policy)
                if self.load_log_file:
                    tuner.preload(self.load_log_file)
            else:
                tuner = policy.make_tuner()
                if self.load_log_file:
                    tuner.load_history(load_records(self.load_log_file), min_seed_records=10**9)
            self.tuners.append(tuner)
        for i, tuner in enumerate(self.tuners):
            if tuner.best_config is not None:
                self.best_costs[i] = tuner.best_cost
        self._option = measure_option(builder=tune_option.builder, runner=tune_option.runner)
        self._callbacks = list(tune_option.measure_callbacks)
        self._verbose = tune_option.verbose
        self._per_round = max(1, tune_option.num_measures_per_round)
        self._early = per_task_early_stopping
        budget = tune_option.num_measure_trials
        for i in range(len(self.tasks)):  # a first round for every task
            if self.ct >= budget:
                return
            self._tune_task(i, budget)
        while self.ct < budget:
            i = self._next_task()
            if i is None:
                return
            self._tune_task(i, budget)

    def _tune_task(self, i: int, budget: int) -> None:
        for callback in self.callbacks:
            getattr(callback, "pre_tune", lambda *a: None)(self, i)
        tuner = self.tuners[i]
        before = tuner.trials
        states = isinstance(tuner, StateSearch)
        progress = [report_progress] if self._verbose and not states else []
        tuner.tune(min(self._per_round, budget - self.ct), self._option, callbacks=self._callbacks + progress)
        if self._verbose and states:
            print(tuner.progress(), flush=True)
        measured = tuner.trials - before
        self.ct += measured
        self.task_cts[i] += 1
        self.best_costs[i] = tuner.best_cost if tuner.best_config is not None else math.inf
        self.task_costs_history[i].append(self.best_costs[i])
        if measured == 0 or not tuner.has_next() or \
                (self._early is not None and tuner.trials - tuner.best_iter >= self._early):
            self.dead.add(i)
        for callback in self.callbacks:
            getattr(callback, "post_tune", lambda *a: None)(self, i)

    def _next_task(self) -> int | None:
        alive = [i for i in range(len(self.tasks)) if i not in self.dead]
        if not alive:
            return None
        if self.strategy == "round-robin":
            return min(alive, key=lambda i: (self.task_cts[i], i))
        gradients = [self.gradient(i) for i in alive]
        if max(gradients) == min(gradients):
            return alive[int(self.rng.integers(len(alive)))]
        return alive[int(np.argmin(gradients))]

    def gradient(self, i: int) -> float:
        """The expected change of the objective per round spent on task *i* (negative: a gain)."""
        cost = self.best_costs[i]
        if not math.isfinite(cost):
            return -math.inf  # nothing works yet: try it first
        delta = 1e-7 * max(cost, 1e-12)
        finite = [c if math.isfinite(c) else 0.0 for c in self.best_costs]  # tasks not yet working count 0
        lowered = list(finite)
        lowered[i] -= delta
        chain = (self.objective_func(finite) - self.objective_func(lowered)) / delta
        history = self.task_costs_history[i]
        backward = 0.0
        if len(history) > self.window and math.isfinite(history[-1 - self.window]):
            backward = (history[-1] - history[-1 - self.window]) / self.window
        forward = -cost / (self.task_cts[i] + 1)  # optimistic: the cost shrinking as 1 / rounds
        return chain * (self.alpha * backward + (1 - self.alpha) * forward)
