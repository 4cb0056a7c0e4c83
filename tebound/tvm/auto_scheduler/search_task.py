"""TVM's ``auto_scheduler.search_task``: ``SearchTask``, ``HardwareParams``, ``TuningOptions``,
``LayoutRewriteOption`` and the table of task inputs."""

from tune.auto_scheduler.search_task import (
    TASK_INPUT_BUFFER_TABLE,
    HardwareParams,
    LayoutRewriteOption,
    SearchTask,
    TuningOptions,
)

__all__ = ["TASK_INPUT_BUFFER_TABLE", "HardwareParams", "LayoutRewriteOption", "SearchTask", "TuningOptions"]
