"""TVM's ``auto_scheduler.cost_model``: the cost models of loop states."""

from tebound.tvm.auto_scheduler.cost_model.cost_model import PythonBasedModel, RandomModel, XGBModel

__all__ = ["PythonBasedModel", "RandomModel", "XGBModel"]
