"""TVM's ``auto_scheduler.search_task``: ``SearchTask``, ``HardwareParams``, ``TuningOptions``,
``LayoutRewriteOption`` and the table of task inputs."""

from typing import Any

from tune.auto_scheduler.search_task import HardwareParams, LayoutRewriteOption, SearchTask, TuningOptions

#: Input buffers given to tasks by name (TVM's; a task here takes none).
TASK_INPUT_BUFFER_TABLE: dict[str, Any] = {}

__all__ = ["TASK_INPUT_BUFFER_TABLE", "HardwareParams", "LayoutRewriteOption", "SearchTask", "TuningOptions"]
