"""TVM's ``auto_scheduler.search_policy``: the policies and the custom sketch rules' codes."""

from tune.auto_scheduler.search_task import EmptyPolicy, PreloadCustomSketchRule, SearchPolicy, SketchPolicy

__all__ = ["EmptyPolicy", "PreloadCustomSketchRule", "SearchPolicy", "SketchPolicy"]
