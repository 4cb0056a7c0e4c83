"""Measuring configurations, as TVM's ``autotvm.measure``: the roles (:mod:`.measure`), the
local builder and runner (:mod:`.local`), and TVM's submit-style executor interface
(:mod:`.executor`)."""

from tune.autotvm.measure import executor
from tune.autotvm.measure.local import LocalBuilder, LocalRunner, run_trial
from tune.autotvm.measure.measure import (
    Builder,
    BuildResult,
    MeasureBatch,
    MeasureErrorNo,
    MeasureInput,
    MeasureOption,
    MeasureResult,
    Runner,
    create_measure_batch,
)
from tune.autotvm.measure.option import measure_option

__all__ = ["BuildResult", "Builder", "LocalBuilder", "LocalRunner", "MeasureBatch", "MeasureErrorNo", "MeasureInput",
           "MeasureOption", "MeasureResult", "Runner", "create_measure_batch", "executor", "measure_option",
           "run_trial"]
