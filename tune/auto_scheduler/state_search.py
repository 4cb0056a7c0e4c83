"""TVM's search over loop states (``SketchPolicy.search``): each round samples an initial
population from the sketches (open split lengths drawn, then TVM's parallel, unroll and
vector annotations, :mod:`.init_rules`), adds the best states measured so far, evolves it
under the cost model, and measures the best unmeasured states, with a few random ones
(epsilon-greedy). Each measured batch goes to the measure callbacks as
``callback(policy, inputs, results)`` (auto_scheduler's ``MeasureInput`` of a task and a
state, and ``MeasureResult``), then to the cost model. The search stops after the trials
asked for, or *early_stopping* trials after the last improvement. Then the best few states this
search measured are measured again, together (as Ansor and MetaSchedule re-measure their top
candidates), and each keeps the faster of its two costs: a good state first timed while the
machine was busy gets a second chance. The new runs go to the callbacks (the log) too; they
count no trial."""

from __future__ import annotations

import json
import random
import sys
from typing import Any

from tune.auto_scheduler.init_rules import MAX_VECTORIZE, annotate
from tune.auto_scheduler.loop_state import State
from tune.auto_scheduler.population import evolutionary_search, sample_initial_population
from tune.auto_scheduler.records import MeasureInput, MeasureResult, RecordReader, mean_cost
from tune.autotvm.measure import MeasureBatch, measure_option

#: How many of its best states a search measures again at its end.
REMEASURE_TOP = 3
#: The cost TVM records for a trial that failed.
FAILED_COST = 1e10
#: TVM's defaults of the policy's parameters (``SketchPolicy(params=...)``), but a population
#: of 64 (TVM's 2048 is sized for its C++ search).
DEFAULT_PARAMS = {"eps_greedy": 0.05, "retry_search_one_round_on_empty": 1, "sample_init_use_measured_ratio": 0.2,
                  "evolutionary_search_population": 64, "evolutionary_search_num_iters": 4,
                  "max_vectorize_size": MAX_VECTORIZE}


def state_key(state: State) -> str:
    """What tells two states apart: their steps."""
    return json.dumps([s.record() for s in state.transform_steps])


def record_result(res: Any) -> MeasureResult:
    """auto_scheduler's result of a trial measured by autotvm's builder and runner."""
    if isinstance(res, MeasureResult):
        return res
    if res.error_no != 0:
        message = " ".join(str(c) for c in res.costs)
        return MeasureResult([FAILED_COST], res.error_no, message, res.all_cost, res.timestamp)
    return MeasureResult(list(res.costs), 0, "", res.all_cost, res.timestamp)


class StateSearch:
    """One search of *policy*'s task (``SketchPolicy`` or ``EmptyPolicy``)."""

    def __init__(self, policy: Any) -> None:
        self.policy, self.task = policy, policy.search_task
        self.dag = self.task.compute_dag
        self.params = {**DEFAULT_PARAMS, **(policy.params or {})}
        self.rng = random.Random(policy.seed)
        self.measured: dict[str, float] = {}
        self.own: dict[str, State] = {}  # the states this search measured, by key
        self.best_states: list[tuple[float, State]] = []
        self.best_cost, self.best_ct, self.ct = float("inf"), 0, 0
        self.exhausted = False
        self._batch: MeasureBatch | None = None  # what a task scheduler's rounds measure with
        self._sketches: list[State] | None = None

    # -- what the policy learned before --------------------------------------------------------
    def preload(self, filename: Any) -> None:
        """Count the log's trials of this task as measured, and teach the model with them."""
        inputs, results = [], []
        for inp, res in RecordReader(filename):
            if inp.task.workload_key != self.task.workload_key:
                continue
            self.note(inp.state, res)
            inputs.append(MeasureInput(self.task, inp.state))
            results.append(res)
        if inputs:
            self.policy.model.update(inputs, results)

    def note(self, state: State, res: MeasureResult) -> None:
        cost = mean_cost(res)
        self.measured[state_key(state)] = cost
        self.best_cost = min(self.best_cost, cost)
        if cost < float("inf"):
            self.best_states.append((cost, state))
            self.best_states.sort(key=lambda x: x[0])

    # -- candidates ----------------------------------------------------------------------------
    def sketches(self) -> list[State]:
        if self._sketches is None:
            self._sketches = list(self.policy.generate_sketches()) or [self.dag.get_init_state()]
        return self._sketches

    def initial_population(self) -> list[State]:
        """Filled and annotated sketches, the best measured states among them."""
        size = int(self.params["evolutionary_search_population"])
        cores = self.task.hardware_params.num_cores
        out = []
        for state in sample_initial_population(self.dag, self.sketches(), size, self.rng.randrange(2 ** 31)):
            try:
                out.append(annotate(self.dag.infer_bound_from_state(state), cores, self.rng,
                                    int(self.params["max_vectorize_size"])))
            except (TypeError, ValueError):  # a split the schedule refuses: not a candidate
                continue
        reuse = int(size * float(self.params["sample_init_use_measured_ratio"]))
        return out + [s for _, s in self.best_states[:reuse]]

    def one_round(self, count: int) -> list[State]:
        """Up to *count* unmeasured states: the model's best, a few random ones."""
        population = self.initial_population()
        best = evolutionary_search(self.dag, self.task, self.policy.model, population, 2 * count,
                                   generations=int(self.params["evolutionary_search_num_iters"]),
                                   seed=self.rng.randrange(2 ** 31))
        n_random = max(int(float(self.params["eps_greedy"]) * count), 1 if count > 1 else 0)
        picks: list[State] = []
        seen: set[str] = set()
        for pool, limit in ((best, count - n_random), (self.rng.sample(population, len(population)), count)):
            for state in pool:
                key = state_key(state)
                if len(picks) >= limit:
                    break
                if key not in self.measured and key not in seen:
                    seen.add(key)
                    picks.append(state)
        return picks

    # -- the search ----------------------------------------------------------------------------
    def measure_round(self, measure: Any, count: int, callbacks: Any = ()) -> int:
        """Measure up to *count* new states with *measure* (a ``MeasureBatch``), hand them to
        *callbacks* and the model; how many were measured (0: the search found none, after
        the retries ``retry_search_one_round_on_empty`` allows)."""
        picks: list[State] = []
        for _ in range(1 + int(self.params["retry_search_one_round_on_empty"])):
            picks = self.policy.candidates(self, count)
            if picks:
                break
        if not picks:
            self.exhausted = True
            return 0
        inputs = [MeasureInput(self.task, s) for s in picks]
        results = [record_result(r) for r in measure(inputs)]
        for callback in callbacks:
            callback(self.policy, inputs, results)
        self.policy.model.update(inputs, results)
        for state, res in zip(picks, results):
            self.own[state_key(state)] = state
            self.ct += 1
            if mean_cost(res) < self.best_cost:
                self.best_cost, self.best_ct = mean_cost(res), self.ct
            self.note(state, res)
        return len(picks)

    def run(self, options: Any) -> State | None:
        """Measure up to *options*' trials; the best state found (None if none ran)."""
        n_trials = options.num_measure_trials
        per_round = max(int(options.num_measures_per_round), 1)
        option = measure_option(builder=options.builder, runner=options.runner)
        with MeasureBatch(option) as measure:
            while self.ct < n_trials:
                if not self.measure_round(measure, min(per_round, n_trials - self.ct), options.measure_callbacks):
                    break
                if options.verbose:
                    print(self.progress(), file=sys.stdout, flush=True)
                stop = options.early_stopping
                if stop is not None and stop >= 0 and self.ct - self.best_ct > stop:
                    if options.verbose:
                        print(f"auto_scheduler: no better state in {stop} trials; stopping early", flush=True)
                    break
            self.remeasure(measure, options.measure_callbacks)
        return self.best_state

    def remeasure(self, measure: Any, callbacks: Any = ()) -> None:
        """The best :data:`REMEASURE_TOP` states this search measured, measured again in one
        batch; each keeps the faster of its costs (no trial is counted)."""
        ranked = sorted(self.own, key=lambda key: self.measured[key])
        top = [key for key in ranked if self.measured[key] < FAILED_COST][:REMEASURE_TOP]
        if len(top) < 2:
            return
        inputs = [MeasureInput(self.task, self.own[key]) for key in top]
        results = [record_result(r) for r in measure(inputs)]
        for callback in callbacks:
            callback(self.policy, inputs, results)
        for key, res in zip(top, results):
            self.measured[key] = min(self.measured[key], mean_cost(res))
        self.best_states = sorted(((self.measured[state_key(s)], s) for _, s in self.best_states),
                                  key=lambda pair: pair[0])
        self.best_cost = min(self.best_cost, *(self.measured[key] for key in top))

    def progress(self) -> str:
        best = f"{self.best_cost * 1e3:.3f} ms" if self.best_cost < float("inf") else "none yet"
        return f"auto_scheduler: {self.task.workload_key}: {self.ct} trials, best {best}"

    # -- what a task scheduler asks of a tuner -------------------------------------------------
    @property
    def best_state(self) -> State | None:
        return self.best_states[0][1] if self.best_states else None

    best_config = best_state

    @property
    def trials(self) -> int:
        return self.ct

    @property
    def best_iter(self) -> int:
        return self.best_ct

    @property
    def visited(self) -> set[str]:
        return set(self.measured)

    def has_next(self) -> bool:
        return not self.exhausted

    def tune(self, n_trial: int, measure_option: Any, callbacks: Any = ()) -> None:
        """One round of up to *n_trial* states measured with *measure_option* (a builder and
        a runner), as a task scheduler gives a task its round."""
        if self._batch is None or self._batch.option is not measure_option:
            self._batch = MeasureBatch(measure_option)
        self.measure_round(self._batch, n_trial, callbacks)


__all__ = ["DEFAULT_PARAMS", "FAILED_COST", "REMEASURE_TOP", "StateSearch", "record_result", "state_key"]
