"""TVM's ``auto_scheduler.loop_state``: ``State``, ``Stage`` and ``Iterator``."""

from tune.auto_scheduler.loop_state import Iterator, Stage, State

__all__ = ["Iterator", "Stage", "State"]
