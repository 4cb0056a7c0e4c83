"""TVM's ``tvm.auto_scheduler``: ``tune.auto_scheduler``."""

from tune.auto_scheduler import (
    ApplyHistoryBest,
    ComputeDAG,
    LocalBuilder,
    LocalRPCMeasureContext,
    LocalRunner,
    PreloadMeasuredStates,
    RandomModel,
    RecordToFile,
    SearchTask,
    SketchPolicy,
    TaskScheduler,
    TuningOptions,
    XGBModel,
    load_records,
    make_workload_key,
    register_workload,
)

__all__ = ["ApplyHistoryBest", "ComputeDAG", "LocalBuilder", "LocalRPCMeasureContext", "LocalRunner",
           "PreloadMeasuredStates", "RandomModel", "RecordToFile", "SearchTask", "SketchPolicy", "TaskScheduler",
           "TuningOptions", "XGBModel", "load_records", "make_workload_key", "register_workload"]
