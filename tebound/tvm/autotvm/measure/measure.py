"""TVM's ``tvm.autotvm.measure.measure``: ``tune.autotvm.measure.measure``."""

from tune.autotvm.measure.measure import (
    Builder,
    BuildResult,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    Runner,
    create_measure_batch,
)
from tune.autotvm.measure.option import measure_option

__all__ = ["BuildResult", "Builder", "MeasureErrorNo", "MeasureInput", "MeasureResult", "Runner",
           "create_measure_batch", "measure_option"]
