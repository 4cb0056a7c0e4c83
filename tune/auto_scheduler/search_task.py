"""TVM's auto_scheduler entry points: a ``SearchTask`` of a registered workload or a
``ComputeDAG``, ``TuningOptions``, the search policy (``SketchPolicy`` with an ``XGBModel``
or a ``RandomModel``, ``EmptyPolicy``), and ``apply_best`` / ``print_best`` on a log.

A policy searches one of two spaces (``params={"space": ...}``):

- ``"states"`` (the default, TVM's): loop states from the sketches, their tile sizes drawn
  and evolved under the cost model (:mod:`.state_search`); the log holds TVM's lines.
- ``"knobs"``: the configuration space generated from the DAG (:mod:`.sketch`), searched by
  autotvm's tuners (``XGBTuner`` with its evolutionary search, or ``RandomTuner``); the log
  is autotvm's, under the task name ``auto/<workload key>``. The tuner measures first the
  known-good tile shapes of :mod:`.tile_hints` (``params={"tile_hints": n}``, 8 by default;
  0: none).

``apply_best`` applies the best loop state of a log if it holds any of the task, else its
best configuration.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pickle
import random
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from lower import build
from lower.target import Target
from tune.auto_scheduler.compute_dag import ComputeDAG
from tune.auto_scheduler.loop_state import replay_on_state
from tune.auto_scheduler.measure import load_records
from tune.auto_scheduler.population import evolutionary_search, sample_initial_population
from tune.auto_scheduler.records import HardwareParams, best_record, load_any_records, load_best_record
from tune.auto_scheduler.records import MeasureInput as StateInput
from tune.auto_scheduler.schedule_text import schedule_text
from tune.auto_scheduler.sketch import apply_best, create
from tune.auto_scheduler.sketch_rules import CPU_RULES, CustomRule, generate_sketches
from tune.auto_scheduler.state_search import DEFAULT_PARAMS, REMEASURE_TOP, StateSearch, state_key
from tune.auto_scheduler.tile_hints import HINTS, hints
from tune.auto_scheduler.workload import WORKLOADS, make_workload_key, register_workload_tensors
from tune.autotvm.measure import measure_option
from tune.autotvm.space import InstantiationError
from tune.autotvm.tuner import RandomTuner, Tuner, XGBTuner
from tune.features import schedule_features

#: States whose features a learned model keeps.
FEATURE_CACHE = 20000
#: The cost model's features in the knob search (``params={"space": "knobs"}``): the knobs'
#: values, nothing lowered.
KNOB_FEATURES = "knob"


class TuningOptions:
    """How long and how a search measures: *num_measure_trials* trials (0: none), stopping
    after *early_stopping* trials without improvement; *builder* and *runner* ("local" or the
    objects); *measure_callbacks* (``RecordToFile``); *verbose* 0 (silent) or more (a line per
    round). *num_measures_per_round* is TVM's; rounds here are the builder's batch."""

    def __init__(self, num_measure_trials: int = 0, early_stopping: int | None = None,
                 num_measures_per_round: int = 64, verbose: int = 1, builder: Any = "local", runner: Any = "local",
                 measure_callbacks: Sequence[Any] | None = None) -> None:
        if isinstance(num_measure_trials, bool) or not isinstance(num_measure_trials, int) or num_measure_trials < 0:
            raise ValueError(f"TuningOptions: num_measure_trials is an int >= 0, got {num_measure_trials!r}")
        self.num_measure_trials, self.early_stopping = num_measure_trials, early_stopping
        self.num_measures_per_round, self.verbose = num_measures_per_round, verbose
        self.builder, self.runner = builder, runner
        self.measure_callbacks = list(measure_callbacks or [])


class PythonBasedModel:
    """A cost model written in Python: ``update(inputs, results)`` and ``predict(task, states)``
    (higher is better)."""

    def update(self, inputs: Sequence[Any], results: Sequence[Any]) -> None:
        raise NotImplementedError("PythonBasedModel: override update(inputs, results)")

    def predict(self, task: Any, states: Sequence[Any]) -> list[float]:
        raise NotImplementedError("PythonBasedModel: override predict(task, states)")


class RandomModel(PythonBasedModel):
    """No model: random scores (configurations are tried in a random order)."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def update(self, inputs: Sequence[Any], results: Sequence[Any]) -> None:
        """Nothing to learn."""

    def predict(self, task: Any, states: Sequence[Any]) -> list[float]:
        return list(self._rng.uniform(0, 1, len(states)))


class XGBModel(PythonBasedModel):
    """The learned cost model (XGBoost). Measured loop states train it to predict a state's
    throughput relative to the best of its task, from the features of the schedule it
    makes (:mod:`tune.features`); ``update_from_file`` learns from a log. The search here
    also seeds its tuner with the records it was given."""

    def __init__(self, verbose_eval: int = 25, num_warmup_sample: int = 100, seed: int | None = None,
                 model_file: str | None = None, adaptive_training: bool = False, disable_update: bool = False,
                 few_shot_learning: bool = False) -> None:
        self.num_warmup_sample, self.seed = num_warmup_sample, seed
        self.records: list[Any] = []
        self.features: list[np.ndarray] = []
        self.costs: list[tuple[str, float]] = []
        self.booster: Any = None
        self._cache: dict[tuple[str, str], np.ndarray] = {}  # features by (workload key, state)
        if model_file is not None:
            self.load(model_file)

    def update_from_file(self, file_name: Any, n_lines: int | None = None) -> None:
        records = load_any_records(file_name)
        records = records[:n_lines] if n_lines is not None else records
        self.update([inp for inp, _ in records], [res for _, res in records])

    def update(self, inputs: Sequence[Any], results: Sequence[Any]) -> None:
        states = [(inp, res) for inp, res in zip(inputs, results) if isinstance(inp, StateInput)]
        self.records += [(inp, res) for inp, res in zip(inputs, results) if not isinstance(inp, StateInput)]
        for inp, res in states:
            if res.error_no != 0 or not res.costs or inp.task.compute_dag is None:
                continue
            self.features.append(state_features(inp.task.compute_dag, inp.state))
            self.costs.append((inp.task.workload_key, float(np.mean([float(c) for c in res.costs]))))
        if states and len(self.features) >= max(self.num_warmup_sample, 1):
            self._fit()

    def _fit(self) -> None:
        import xgboost as xgb  # an optional dependency (pip install 'tebound[tune]')

        best: dict[str, float] = {}
        for key, cost in self.costs:
            best[key] = min(best.get(key, cost), cost)
        labels = np.array([best[key] / cost for key, cost in self.costs])
        data = xgb.DMatrix(np.array(self.features), label=labels)
        params = {"max_depth": 6, "eta": 0.3, "objective": "reg:squarederror", "verbosity": 0,
                  "seed": self.seed or 0, "nthread": 1}
        self.booster = xgb.train(params, data, num_boost_round=200)

    def predict(self, task: Any, states: Sequence[Any]) -> list[float]:
        """The predicted relative throughput of each state (random before any training)."""
        if self.booster is None:
            return RandomModel(self.seed).predict(task, states)
        import xgboost as xgb

        x = np.array([self._features(task, s) for s in states])
        return list(self.booster.predict(xgb.DMatrix(x)))

    def _features(self, task: Any, state: Any) -> np.ndarray:
        """The features of *state*, kept: an evolutionary search scores a state once per
        generation it survives."""
        key = (task.workload_key, state_key(state))
        if key not in self._cache:
            if len(self._cache) >= FEATURE_CACHE:
                self._cache.clear()
            self._cache[key] = state_features(task.compute_dag, state)
        return self._cache[key]

    def save(self, file_name: str) -> None:
        with open(file_name, "wb") as f:
            pickle.dump({"features": self.features, "costs": self.costs, "booster": self.booster}, f)

    def load(self, file_name: str) -> None:
        with open(file_name, "rb") as f:
            saved = pickle.load(f)
        self.features, self.costs, self.booster = saved["features"], saved["costs"], saved["booster"]


def state_features(dag: ComputeDAG, state: Any) -> np.ndarray:
    """The features of the schedule *state* makes of *dag*."""
    sch, args = dag.apply_steps_from_state(state)
    return schedule_features(sch, args)


class PreloadMeasuredStates:
    """An init-search callback: the trials of the log *filename* count as done and are
    learned from, so a search resumes where the log stops."""

    def __init__(self, filename: str = "auto_scheduler_tuning.json") -> None:
        self.filename = filename

    def __call__(self, tuner: Any) -> None:
        if isinstance(tuner, StateSearch):
            tuner.preload(self.filename)
        else:
            tuner.load_history(load_records(self.filename), min_seed_records=10**9)


class SearchPolicy:
    """The base of the search policies (TVM's)."""


class SketchPolicy(SearchPolicy):
    """The search of *task* with *program_cost_model*: over loop states, or (``params=
    {"space": "knobs"}``) over the generated configuration space (see the module). *params*
    takes TVM's names (``eps_greedy``, ``evolutionary_search_population``, ...)."""

    def __init__(self, task: SearchTask, program_cost_model: Any = None, params: Any = None, seed: int | None = None,
                 verbose: int = 1, init_search_callbacks: Sequence[Any] | None = None) -> None:
        if not isinstance(task, SearchTask):
            raise TypeError(f"SketchPolicy: task is a SearchTask, got {task!r}")
        model = program_cost_model if program_cost_model is not None else RandomModel()
        if not isinstance(model, PythonBasedModel):
            raise TypeError(f"SketchPolicy: program_cost_model is an XGBModel, a RandomModel or a PythonBasedModel, "
                            f"got {model!r}")
        if params is not None and not isinstance(params, dict):
            raise TypeError(f"SketchPolicy: params is a dict of TVM's parameter names, got {params!r}")
        self.task, self.model, self.seed, self.verbose = task, model, seed, verbose
        self.search_task, self.params = task, dict(params or {})  # TVM's names
        for key, value in self.params.items():
            if key in DEFAULT_PARAMS and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise ValueError(f"SketchPolicy: params[{key!r}] is a number >= 0, got {value!r}")
        self.space = self.params.pop("space", "states")
        self.tile_hints = self.params.pop("tile_hints", HINTS)
        if isinstance(self.tile_hints, bool) or not isinstance(self.tile_hints, int) or self.tile_hints < 0:
            raise ValueError(f"SketchPolicy: params['tile_hints'] is an int >= 0 (how many known-good "
                             f"configurations the knob search measures first), got {self.tile_hints!r}")
        if self.space not in ("states", "knobs"):
            raise ValueError(f"SketchPolicy: params['space'] is 'states' (TVM's loop states) or 'knobs' (the "
                             f"generated configuration space), got {self.space!r}")
        self.init_search_callbacks = list(init_search_callbacks or [])

    def search(self, tuning_options: TuningOptions) -> Any:
        """Measure the states the search finds (:mod:`.state_search`); the best state (None if
        no trial ran)."""
        search = StateSearch(self)
        for callback in self.init_search_callbacks:
            if not isinstance(callback, PreloadCustomSketchRule):  # those shape sketches
                callback(search)
        return search.run(tuning_options)

    def candidates(self, search: StateSearch, count: int) -> list[Any]:
        """The states to measure next (at most *count*)."""
        return search.one_round(count)

    def sample_initial_population(self, size: int = 64) -> list[Any]:
        """*size* concrete states: the sketches, their open split lengths drawn at random."""
        return sample_initial_population(self.task.compute_dag, self.generate_sketches(), size, self.seed)

    def evolutionary_search(self, init_populations: Sequence[Any], out_size: int) -> list[Any]:
        """The *out_size* best states the cost model finds by mutating *init_populations*'
        tile sizes."""
        return evolutionary_search(self.task.compute_dag, self.task, self.model, init_populations, out_size,
                                   seed=self.seed if self.seed is not None else random.randrange(2 ** 31))

    def generate_sketches(self, print_for_debug: bool = False) -> list[Any]:
        """TVM's sketches of the task (:mod:`.sketch_rules`): loop states with open split
        lengths, the user's custom rules (``PreloadCustomSketchRule``) tried first."""
        custom = [CustomRule(c.meet_condition_func, c.apply_func, c.rule_name) for c in self.init_search_callbacks
                  if isinstance(c, PreloadCustomSketchRule)]
        sketches = generate_sketches(self, [*custom, *CPU_RULES])
        if print_for_debug:
            for s in sketches:
                print(s)
        return sketches

    def make_tuner(self) -> Tuner:
        """The tuner this policy searches with, with what it starts from already loaded."""
        if isinstance(self.model, XGBModel):
            # the knobs' values alone: as good kernels as with the lowered loops' features on
            # ResNet-18's convolutions (two seeds), in two thirds of the search time
            tuner: Tuner = XGBTuner(self.task.tuning_task, feature_type=KNOB_FEATURES, optimizer="evolution",
                                    seed=self.seed if self.seed is not None else self.model.seed)
            if self.model.records:
                tuner.load_history(self.model.records, min_seed_records=10**9)
        else:
            tuner = RandomTuner(self.task.tuning_task, seed=self.seed)
        tuner.screen = True  # configurations the sketch rejects are never measured
        tuner.remeasure_top = REMEASURE_TOP  # the best few measured again before choosing, as Ansor does
        tuner.first = hints(self.task.tuning_task, self.tile_hints) if self.tile_hints else []
        for callback in self.init_search_callbacks:
            if not isinstance(callback, PreloadCustomSketchRule):  # those shape sketches, not the tuner
                callback(tuner)
        return tuner


class LayoutRewriteOption:
    """TVM's choices for rewriting a weight's layout (kept on a task; no rewrite happens here)."""

    NO_REWRITE = 0
    INSERT_TRANSFORM_STAGE = 1
    REWRITE_FOR_PRE_TRANSFORMED = 2

    @staticmethod
    def get_target_default(target: Any, in_relay_integration: bool = False) -> int:
        """TVM's default: a CPU (llvm) or Mali target inserts a transform stage (or, in
        relay, expects weights pre-transformed); others rewrite nothing."""
        target = target if isinstance(target, Target) else Target(str(target))
        if target.kind.name == "llvm" or target.attrs.get("device") == "mali":
            return (LayoutRewriteOption.REWRITE_FOR_PRE_TRANSFORMED if in_relay_integration
                    else LayoutRewriteOption.INSERT_TRANSFORM_STAGE)
        return LayoutRewriteOption.NO_REWRITE


class EmptyPolicy(SketchPolicy):
    """TVM's example policy: it measures the initial state, one trial a round (over the
    configuration space, its configurations in a random order)."""

    def __init__(self, task: SearchTask, init_search_callbacks: Sequence[Any] | None = None) -> None:
        super().__init__(task, RandomModel(), init_search_callbacks=init_search_callbacks)

    def candidates(self, search: StateSearch, count: int) -> list[Any]:
        """The initial state, every round (TVM's example policy)."""
        return [self.task.compute_dag.get_init_state()]


class PreloadCustomSketchRule:
    """A custom sketch rule (TVM's): *meet_condition_func* answers one of the codes below;
    the space here is generated by its own rules, and keeps the rule only as given."""

    PASS = 0
    APPLY = 1
    APPLY_AND_SKIP_REST = 2

    def __init__(self, meet_condition_func: Any, apply_func: Any, rule_name: str = "CustomSketchRule") -> None:
        self.meet_condition_func, self.apply_func, self.rule_name = meet_condition_func, apply_func, rule_name


#: Input arrays given to tasks, by workload key and name (TVM's ``TASK_INPUT_BUFFER_TABLE``).
TASK_INPUT_BUFFER_TABLE: dict[str, dict[str, Any]] = {}


def register_task_inputs(workload_key: str, task_inputs: Any, overwrite: bool = False) -> list[str]:
    """The names of *task_inputs* (a dict of name to array, or names already registered), the
    arrays kept in :data:`TASK_INPUT_BUFFER_TABLE` under *workload_key* (replacing one of the same
    name only with *overwrite*).

    :raises ValueError: for a name registered with another array and no *overwrite*, or a name
        given alone that nothing registered.
    """
    table = TASK_INPUT_BUFFER_TABLE.setdefault(workload_key, {})
    if task_inputs is None:
        return []
    if isinstance(task_inputs, dict):
        for name, array in task_inputs.items():
            if name in table and table[name] is not array and not overwrite:
                raise ValueError(f"SearchTask: task input {name!r} is already registered for this workload; pass "
                                 f"task_inputs_overwrite=True to replace it")
            table[name] = array
        return list(task_inputs)
    names = list(task_inputs)
    missing = [n for n in names if not any(n in t for t in TASK_INPUT_BUFFER_TABLE.values())]
    if missing:
        raise ValueError(f"SearchTask: task inputs {missing} are not registered; give them as a dict of arrays")
    return names


def serialize_task(task: SearchTask) -> str:
    """*task* as TVM's JSON: workload key, target, hardware numbers, target host, layout
    rewrite option and task input names."""
    return json.dumps([task.workload_key, str(task.target), task.hardware_params.to_list(),
                       str(task.target.host) if task.target.host is not None else "", int(task.layout_rewrite_option),
                       list(task.task_input_names)])


def deserialize_task(text: str) -> SearchTask:
    """The task of :func:`serialize_task`'s text (TVM v0.5's, without task inputs, too)."""
    items = json.loads(text)
    key, target, hardware, host, layout = items[:5]
    names = items[5] if len(items) > 5 else []
    return SearchTask(workload_key=key, target=target, hardware_params=HardwareParams.from_list(hardware),
                      target_host=host or None, layout_rewrite_option=layout, task_inputs=names or None)


class SearchTask:
    """A computation to schedule for *target*: a registered workload *func* on *args*, or a
    *compute_dag* (or *workload_key*). ``hardware_params`` (defaults from the target) and
    ``task_inputs`` are kept as TVM's; ``layout_rewrite_option`` lays out the layout-free
    inputs of the states measured and applied, as TVM's (:mod:`.layout_rewrite`)."""

    def __init__(self, func: Any = None, args: Sequence[Any] | None = None, compute_dag: ComputeDAG | None = None,
                 workload_key: str | None = None, target: Any = None, hardware_params: Any = None,
                 layout_rewrite_option: Any = None, task_inputs: Any = None, task_inputs_overwrite: bool = False,
                 task_inputs_save_to_file: bool = False, desc: str = "", target_host: Any = None) -> None:
        if func is not None:
            workload_key = make_workload_key(func, list(args or ()))
            compute_dag = ComputeDAG(workload_key)
        elif compute_dag is None and workload_key is not None:
            compute_dag = ComputeDAG(workload_key)
        if not isinstance(compute_dag, ComputeDAG):
            raise TypeError("SearchTask: give func= and args= (a registered workload) or compute_dag=")
        target = target if target is not None else Target.current()
        self.target = target if isinstance(target, Target) else Target(str(target) if target is not None else "llvm")
        if target_host is not None:  # as TVM's: the host goes with the target
            self.target = Target(self.target, host=target_host)
        self.target_host = self.target.host
        self.compute_dag, self.desc = compute_dag, desc
        self.workload_key = workload_key or compute_dag.workload_key()
        self.hardware_params = hardware_params or HardwareParams(target=self.target)
        self.layout_rewrite_option = (layout_rewrite_option if layout_rewrite_option is not None
                                      else LayoutRewriteOption.get_target_default(self.target))
        self.task_input_names = register_task_inputs(self.workload_key, task_inputs, task_inputs_overwrite)
        self._tuning_task = None

    @property
    def tuning_task(self) -> Any:
        """The autotvm task the search tunes, made when first asked for (a DAG of several
        outputs has none: ``tune`` refuses it)."""
        if self._tuning_task is None and self.compute_dag is not None:
            self._tuning_task = create(self.workload_key, self.compute_dag.tensors, str(self.target))
        return self._tuning_task

    def instantiate(self, state: Any) -> tuple[Any, list[Any]]:
        """The te schedule and arguments of *state* (a loop state of this task's DAG), as an
        autotvm task instantiates a configuration: builders and runners measure states so."""
        try:
            return self.compute_dag.apply_steps_from_state(state, self.layout_rewrite_option)
        except (TypeError, ValueError) as e:  # a schedule primitive refusing this state
            raise InstantiationError(f"{type(e).__name__}: {e}") from e

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_tuning_task"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._tuning_task = None
        if self.compute_dag is not None and self.workload_key not in WORKLOADS:
            try:
                name = json.loads(self.workload_key)[0]
            except (ValueError, TypeError, IndexError, KeyError):
                name = None
            if name not in WORKLOADS:  # a DAG's key names no function: register its tensors under it
                register_workload_tensors(self.workload_key, self.compute_dag.tensors)

    def tune(self, tuning_options: TuningOptions, search_policy: SketchPolicy | None = None) -> None:
        """Searches for *tuning_options*' trials; the callbacks record them."""
        if not isinstance(tuning_options, TuningOptions):
            raise TypeError(f"SearchTask.tune: takes TuningOptions, got {tuning_options!r}")
        if search_policy is None:
            model: Any = XGBModel() if importlib.util.find_spec("xgboost") else RandomModel()
            if isinstance(model, RandomModel):
                warnings.warn("auto_scheduler: xgboost is not installed (pip install 'tebound[tune]'); the search "
                              "tries configurations in a random order", stacklevel=2)
            search_policy = SketchPolicy(self, model)
        if search_policy.space == "states":
            search_policy.search(tuning_options)
            return
        tuner = search_policy.make_tuner()
        option = measure_option(builder=tuning_options.builder, runner=tuning_options.runner)
        callbacks = list(tuning_options.measure_callbacks)
        if tuning_options.verbose:
            callbacks.append(report_progress)
        tuner.tune(tuning_options.num_measure_trials, option, early_stopping=tuning_options.early_stopping,
                   callbacks=callbacks)

    def apply_best(self, log_file: Any, include_compatible: bool = False,
                   layout_rewrite_option: Any = None) -> tuple[Any, list[Any]]:
        """The schedule and arguments of the best trial of this task in *log_file*: its best
        loop state if the log has states of this task, else its best configuration."""
        inp = self._best_state_input(log_file)
        if inp is not None:
            option = layout_rewrite_option if layout_rewrite_option is not None else self.layout_rewrite_option
            return self.compute_dag.apply_steps_from_state(inp.state, option)
        return apply_best(self.tuning_task, log_file)

    def _best_state_input(self, log: Any) -> Any:
        """The input of the fastest error-free loop-state record of this task in *log* (a log
        file, or a list of records), or None."""
        if isinstance(log, (str, os.PathLike)):
            return load_best_record(log, self.workload_key)[0]
        if not isinstance(log, (list, tuple)):
            return None
        return best_record([(inp, res) for inp, res in log if isinstance(inp, StateInput)], self.workload_key)[0]

    def print_best(self, log_file: Any, print_mode: str = "schedule") -> str:
        """The best schedule as te calls (``"schedule"``), or the source of its build
        (``"cuda"``: the C code that runs it here; no CUDA is generated)."""
        s, args = self.apply_best(log_file)
        if print_mode == "schedule":
            return schedule_text(s, self.compute_dag.ops)
        if print_mode == "cuda":
            return build(s, args, target="c").get_source()
        raise ValueError(f"print_best: print_mode is 'schedule' or 'cuda', got {print_mode!r}")

    def __repr__(self) -> str:
        return f"SearchTask(workload_key={self.workload_key}, target={self.target})"


def report_progress(tuner: Tuner, inputs: Sequence[Any], results: Sequence[Any]) -> None:
    """A measure callback printing the trials so far and the best (``TuningOptions(verbose=1)``)."""
    gflops = tuner.best_flops / 1e9 if tuner.task.flop else 0.0
    best = f"{gflops:.2f} GFLOPS" if tuner.task.flop else f"{tuner.best_cost * 1e3:.3f} ms"
    print(f"auto_scheduler: {tuner.trials} trials, best {best}", file=sys.stdout, flush=True)


def recover_measure_input(inp: Any, rebuild_state: bool = False) -> StateInput:
    """*inp* (a record's input) with a SearchTask rebuilt from the workload registry, and
    (with *rebuild_state*) its state replayed on that task's DAG."""
    task = inp.task
    new_task = SearchTask(workload_key=task.workload_key, target=task.target, hardware_params=task.hardware_params,
                          layout_rewrite_option=task.layout_rewrite_option, target_host=task.target_host)
    state = inp.state
    if rebuild_state:
        state = replay_on_state(new_task.compute_dag.get_init_state(), inp.state.transform_steps)
    return StateInput(new_task, state)
