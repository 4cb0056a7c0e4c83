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
from tune.auto_scheduler.workload import make_workload_key
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


class SketchPolicy:
    """The search over *task*'s generated space with *program_cost_model*."""

    def __init__(self, task: SearchTask, program_cost_model: Any = None, params: Any = None, seed: int | None = None,
                 verbose: int = 1, init_search_callbacks: Sequence[Any] | None = None) -> None:
        if not isinstance(task, SearchTask):
            raise TypeError(f"SketchPolicy: task is a SearchTask, got {task!r}")
        model = program_cost_model if program_cost_model is not None else RandomModel()
        if not isinstance(model, (XGBModel, RandomModel)):
            raise TypeError(f"SketchPolicy: program_cost_model is an XGBModel or a RandomModel, got {model!r}")
        self.task, self.model, self.seed, self.verbose = task, model, seed, verbose
        self.init_search_callbacks = list(init_search_callbacks or [])

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
            callback(tuner)
        return tuner


class SearchTask:
    """A computation to schedule for *target*: a registered workload *func* on *args*, or a
    *compute_dag* (or *workload_key*). ``hardware_params``, ``layout_rewrite_option`` and
    ``task_inputs`` are TVM's and change nothing here."""

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
        self.compute_dag, self.desc = compute_dag, desc
        self.workload_key = workload_key or str(compute_dag)
        self.tuning_task = create(self.workload_key, compute_dag.tensors, str(self.target))

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
