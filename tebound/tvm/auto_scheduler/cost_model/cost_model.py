"""TVM's ``auto_scheduler.cost_model.cost_model``: ``RandomModel``, ``XGBModel`` and the base of
models written in Python."""

from tune.auto_scheduler.search_task import PythonBasedModel, RandomModel, XGBModel

__all__ = ["PythonBasedModel", "RandomModel", "XGBModel"]
