"""TVM's ``auto_scheduler.measure``: the measurement records of loop states, the builders and
runners, and the Python measure callbacks."""

from typing import Any

from tune.auto_scheduler.measure import LocalBuilder, LocalRPCMeasureContext, LocalRunner
from tune.auto_scheduler.records import MeasureInput, MeasureResult
from tune.auto_scheduler.search_task import recover_measure_input


class PythonBasedMeasureCallback:
    """A measure callback written in Python: override ``callback(policy, inputs, results)``."""

    def callback(self, policy: Any, inputs: Any, results: Any) -> None:
        raise NotImplementedError("PythonBasedMeasureCallback: override callback(policy, inputs, results)")

    def __call__(self, policy: Any, inputs: Any, results: Any) -> None:
        self.callback(policy, inputs, results)


__all__ = ["LocalBuilder", "LocalRPCMeasureContext", "LocalRunner", "MeasureInput", "MeasureResult",
           "PythonBasedMeasureCallback", "recover_measure_input"]
