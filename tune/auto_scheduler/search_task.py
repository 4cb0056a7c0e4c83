"""TVM's auto_scheduler entry points over our generated space (:mod:`.sketch`): a
``SearchTask`` of a registered workload or a ``ComputeDAG``, ``TuningOptions``, the search
policy (``SketchPolicy`` with an ``XGBModel`` or a ``RandomModel``), and ``apply_best`` /
``print_best`` on a log.

The policy drives autotvm's tuners: with ``XGBModel``, :class:`~tune.autotvm.tuner.XGBTuner`
with its evolutionary search (as Ansor's policy); with ``RandomModel``,
:class:`~tune.autotvm.tuner.RandomTuner`. The log is autotvm's, under
the task name ``auto/<workload key>``, so a task made again in another process finds its
records.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from lower import build
from lower.target import Target
from tune.auto_scheduler.compute_dag import ComputeDAG
from tune.auto_scheduler.measure import load_records
from tune.auto_scheduler.schedule_text import schedule_text
from tune.auto_scheduler.sketch import apply_best, create
from tune.auto_scheduler.sketch_rules import CPU_RULES, CustomRule, generate_sketches
from tune.auto_scheduler.workload import WORKLOADS, make_workload_key, register_workload_tensors
from tune.autotvm.measure import measure_option
from tune.autotvm.tuner import RandomTuner, Tuner, XGBTuner


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


class RandomModel:
    """No model: configurations are tried in a random order."""


class XGBModel:
    """The learned cost model (XGBoost); ``update_from_file`` gives it a log to start from."""

    def __init__(self, verbose_eval: int = 25, num_warmup_sample: int = 100, seed: int | None = None,
                 model_file: str | None = None, adaptive_training: bool = False, disable_update: bool = False,
                 few_shot_learning: bool = False) -> None:
        self.num_warmup_sample, self.seed = num_warmup_sample, seed
        self.records: list[Any] = []

    def update_from_file(self, file_name: Any, n_lines: int | None = None) -> None:
        records = load_records(file_name)
        self.records += records[:n_lines] if n_lines is not None else records

    def update(self, inputs: Sequence[Any], results: Sequence[Any]) -> None:
        self.records += list(zip(inputs, results))


class PreloadMeasuredStates:
    """An init-search callback: the trials of the log *filename* count as done and are
    learned from, so a search resumes where the log stops."""

    def __init__(self, filename: str = "auto_scheduler_tuning.json") -> None:
        self.filename = filename

    def __call__(self, tuner: Tuner) -> None:
        tuner.load_history(load_records(self.filename), min_seed_records=10**9)


class SearchPolicy:
    """The base of the search policies (TVM's)."""


class SketchPolicy(SearchPolicy):
    """The search over *task*'s generated space with *program_cost_model*."""

    def __init__(self, task: SearchTask, program_cost_model: Any = None, params: Any = None, seed: int | None = None,
                 verbose: int = 1, init_search_callbacks: Sequence[Any] | None = None) -> None:
        if not isinstance(task, SearchTask):
            raise TypeError(f"SketchPolicy: task is a SearchTask, got {task!r}")
        model = program_cost_model if program_cost_model is not None else RandomModel()
        if not isinstance(model, (XGBModel, RandomModel)):
            raise TypeError(f"SketchPolicy: program_cost_model is an XGBModel or a RandomModel, got {model!r}")
        self.task, self.model, self.seed, self.verbose = task, model, seed, verbose
        self.search_task = task  # TVM's name
        self.init_search_callbacks = list(init_search_callbacks or [])

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
            tuner: Tuner = XGBTuner(self.task.tuning_task, optimizer="evolution",
                                    seed=self.seed if self.seed is not None else self.model.seed)
            if self.model.records:
                tuner.load_history(self.model.records, min_seed_records=10**9)
        else:
            tuner = RandomTuner(self.task.tuning_task, seed=self.seed)
        tuner.screen = True  # configurations the sketch rejects are never measured
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
        return LayoutRewriteOption.NO_REWRITE


class HardwareParams:
    """What a search assumes of the machine (TVM's): cores, vector and cache line bytes, and
    the GPU's limits (0 on a CPU). Unset values come from *target*."""

    FIELDS = ("num_cores", "vector_unit_bytes", "cache_line_bytes", "max_shared_memory_per_block",
              "max_local_memory_per_block", "max_threads_per_block", "max_vthread_extent", "warp_size")

    def __init__(self, num_cores: int | None = None, vector_unit_bytes: int | None = None,
                 cache_line_bytes: int | None = None, max_shared_memory_per_block: int | None = None,
                 max_local_memory_per_block: int | None = None, max_threads_per_block: int | None = None,
                 max_vthread_extent: int | None = None, warp_size: int | None = None, target: Any = None,
                 target_host: Any = None) -> None:
        target = target if isinstance(target, Target) or target is None else Target(str(target))
        gpu = target is not None and target.is_gpu
        defaults = {"num_cores": os.cpu_count() or 1, "vector_unit_bytes": 16 if gpu else 64,
                    "cache_line_bytes": 64, "max_shared_memory_per_block": 49152 if gpu else 0,
                    "max_local_memory_per_block": 2147483647 if gpu else 0,
                    "max_threads_per_block": 1024 if gpu else 0, "max_vthread_extent": 8 if gpu else 0,
                    "warp_size": 32 if gpu else 0}
        given = locals()
        for name in self.FIELDS:
            value = given[name]
            setattr(self, name, int(value) if value is not None else defaults[name])

    def to_list(self) -> list[int]:
        return [getattr(self, name) for name in self.FIELDS]

    @staticmethod
    def from_list(values: Sequence[int]) -> HardwareParams:
        return HardwareParams(*values)

    def __repr__(self) -> str:
        return "HardwareParams(" + ", ".join(f"{n}={getattr(self, n)}" for n in self.FIELDS) + ")"


class EmptyPolicy(SketchPolicy):
    """A policy with no model: the space's configurations in a random order (TVM's empty
    policy measures the initial state; here the space holds it)."""

    def __init__(self, task: SearchTask, init_search_callbacks: Sequence[Any] | None = None) -> None:
        super().__init__(task, RandomModel(), init_search_callbacks=init_search_callbacks)


class PreloadCustomSketchRule:
    """A custom sketch rule (TVM's): *meet_condition_func* answers one of the codes below;
    the space here is generated by its own rules, and keeps the rule only as given."""

    PASS = 0
    APPLY = 1
    APPLY_AND_SKIP_REST = 2

    def __init__(self, meet_condition_func: Any, apply_func: Any, rule_name: str = "CustomSketchRule") -> None:
        self.meet_condition_func, self.apply_func, self.rule_name = meet_condition_func, apply_func, rule_name


class SearchTask:
    """A computation to schedule for *target*: a registered workload *func* on *args*, or a
    *compute_dag* (or *workload_key*). ``hardware_params`` (defaults from the target),
    ``layout_rewrite_option`` and ``task_inputs`` are kept as TVM's and change no schedule
    here."""

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
                                      else LayoutRewriteOption.NO_REWRITE)
        self.task_input_names = list(task_inputs or [])
        self._tuning_task = None

    @property
    def tuning_task(self) -> Any:
        """The autotvm task the search tunes, made when first asked for (a DAG of several
        outputs has none: ``tune`` refuses it)."""
        if self._tuning_task is None and self.compute_dag is not None:
            self._tuning_task = create(self.workload_key, self.compute_dag.tensors, str(self.target))
        return self._tuning_task

    @classmethod
    def from_record(cls, workload_key: str, target: str, hardware: Sequence[int], target_host: Any,
                    layout_rewrite_option: int, task_input_names: Sequence[str]) -> SearchTask:
        """The task a log record names: with its DAG when the workload is registered, else
        without one (``recover_measure_input`` needs the registration)."""
        try:
            return cls(workload_key=workload_key, target=target, hardware_params=HardwareParams.from_list(hardware),
                       layout_rewrite_option=layout_rewrite_option, task_inputs=list(task_input_names),
                       target_host=target_host)
        except (TypeError, ValueError):
            task = cls.__new__(cls)
            task.workload_key, task.target = workload_key, Target(target, host=target_host)
            task.target_host = task.target.host
            task.hardware_params = HardwareParams.from_list(hardware)
            task.layout_rewrite_option, task.task_input_names = layout_rewrite_option, list(task_input_names)
            task.compute_dag, task.desc, task._tuning_task = None, "", None
            return task

    def instantiate(self, state: Any) -> tuple[Any, list[Any]]:
        """The te schedule and arguments of *state* (a loop state of this task's DAG), as an
        autotvm task instantiates a configuration: builders and runners measure states so."""
        return self.compute_dag.apply_steps_from_state(state)

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
        tuner = search_policy.make_tuner()
        option = measure_option(builder=tuning_options.builder, runner=tuning_options.runner)
        callbacks = list(tuning_options.measure_callbacks)
        if tuning_options.verbose:
            callbacks.append(report_progress)
        tuner.tune(tuning_options.num_measure_trials, option, early_stopping=tuning_options.early_stopping,
                   callbacks=callbacks)

    def apply_best(self, log_file: Any, include_compatible: bool = False,
                   layout_rewrite_option: Any = None) -> tuple[Any, list[Any]]:
        """The schedule and arguments of the best trial of this task in *log_file*."""
        return apply_best(self.tuning_task, log_file)

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
