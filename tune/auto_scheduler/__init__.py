"""Schedules without a template, with TVM's auto_scheduler names: loop states from sketches
searched under a cost model (:mod:`.state_search`, TVM's), or a configuration space generated
from the compute DAG (:mod:`.sketch`) searched by autotvm's tuners; ``register_workload``,
``SearchTask``, ``TuningOptions``, ``RecordToFile``, ``SketchPolicy`` and the rest
(:mod:`.search_task`, :mod:`.measure`). ``create`` and ``apply_best`` are the short forms on
a list of tensors (the configuration space)."""

from tune.auto_scheduler.compute_dag import ComputeDAG
from tune.auto_scheduler.measure import LocalBuilder, LocalRPCMeasureContext, LocalRunner, RecordToFile, load_records
from tune.auto_scheduler.schedule_text import schedule_text
from tune.auto_scheduler.search_task import (
    PreloadMeasuredStates,
    RandomModel,
    SearchTask,
    SketchPolicy,
    TuningOptions,
    XGBModel,
)
from tune.auto_scheduler.sketch import (
    MAX_INLINED_READS,
    MAX_PLACED,
    MAX_REGISTER_TILE,
    MAX_VECTOR,
    apply_best,
    create,
    sketch,
)
from tune.auto_scheduler.task_scheduler import TaskScheduler
from tune.auto_scheduler.workload import make_workload_key, register_workload
from tune.autotvm.history import ApplyHistoryBest

__all__ = ["MAX_INLINED_READS", "MAX_PLACED", "MAX_REGISTER_TILE", "MAX_VECTOR", "ApplyHistoryBest", "ComputeDAG",
           "LocalBuilder", "LocalRPCMeasureContext", "LocalRunner", "PreloadMeasuredStates", "RandomModel",
           "RecordToFile", "SearchTask", "SketchPolicy", "TaskScheduler", "TuningOptions", "XGBModel", "apply_best",
           "create", "load_records", "make_workload_key", "register_workload", "schedule_text", "sketch"]
