"""TVM's ``tvm.auto_scheduler``: ``tune.auto_scheduler`` under TVM's module names
(``loop_state``, ``measure``, ``measure_record``, ``workload_registry``, ``search_task``,
``utils``, ``_ffi_api``), the loop states and their records included."""

from tebound.tvm.auto_scheduler import (
    _ffi_api,
    cost_model,
    loop_state,
    measure,
    measure_record,
    search_policy,
    search_task,
    utils,
    workload_registry,
)
from tebound.tvm.auto_scheduler.cost_model import PythonBasedModel, RandomModel, XGBModel
from tebound.tvm.auto_scheduler.measure import MeasureInput, MeasureResult
from tebound.tvm.auto_scheduler.measure_record import (
    RecordReader,
    RecordToFile,
    load_best_record,
    load_records,
    save_records,
)
from tebound.tvm.auto_scheduler.search_policy import EmptyPolicy, PreloadCustomSketchRule, SearchPolicy
from tune.auto_scheduler import (
    ApplyHistoryBest,
    ComputeDAG,
    LocalBuilder,
    LocalRPCMeasureContext,
    LocalRunner,
    PreloadMeasuredStates,
    SearchTask,
    SketchPolicy,
    TaskScheduler,
    TuningOptions,
    make_workload_key,
    register_workload,
)
from tune.auto_scheduler.search_task import HardwareParams, LayoutRewriteOption

__all__ = ["ApplyHistoryBest", "ComputeDAG", "EmptyPolicy", "HardwareParams", "LayoutRewriteOption", "LocalBuilder",
           "LocalRPCMeasureContext", "LocalRunner", "MeasureInput", "MeasureResult", "PreloadCustomSketchRule",
           "PreloadMeasuredStates", "PythonBasedModel", "RandomModel", "RecordReader", "RecordToFile", "SearchPolicy",
           "SearchTask", "SketchPolicy", "TaskScheduler", "TuningOptions", "XGBModel", "_ffi_api", "cost_model",
           "load_best_record", "load_records", "loop_state", "make_workload_key", "measure", "measure_record",
           "register_workload", "save_records", "search_policy", "search_task", "utils", "workload_registry"]
