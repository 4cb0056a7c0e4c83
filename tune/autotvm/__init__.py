"""Schedule templates and their tuning, as TVM's ``autotvm``: ``@autotvm.template``,
``autotvm.get_config()``, ``autotvm.task.create``, the tuners, ``measure_option`` with a
``LocalBuilder`` and ``LocalRunner``, logs, and ``apply_history_best``."""

from tune.autotvm import callback, record, report, task, tophub, tuner
from tune.autotvm.dispatch import ApplyConfig, DispatchContext, FallbackContext
from tune.autotvm.history import ApplyHistoryBest, apply_history_best
from tune.autotvm.measure import (
    LocalBuilder,
    LocalRunner,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    create_measure_batch,
    measure_option,
)
from tune.autotvm.space import (
    ConfigEntity,
    ConfigSpace,
    FallbackConfigEntity,
    InstantiationError,
    get_factors,
    get_pow2s,
)
from tune.autotvm.task import Task, get_config, template

__all__ = [
    "ApplyConfig", "ApplyHistoryBest", "ConfigEntity", "ConfigSpace", "DispatchContext", "FallbackConfigEntity",
    "FallbackContext", "InstantiationError", "LocalBuilder", "LocalRunner", "MeasureErrorNo", "MeasureInput",
    "MeasureResult", "Task", "apply_history_best", "callback", "create_measure_batch", "get_config", "get_factors",
    "get_pow2s", "measure_option", "record", "report", "task", "template", "tophub", "tuner",
]
