"""TVM's ``tvm.autotvm.tuner``: the tuners of ``tune.autotvm.tuner``, and its module
``xgboost_cost_model``."""

from tebound.tvm.autotvm.tuner import xgboost_cost_model
from tune.autotvm.tuner import *  # noqa: F403
from tune.autotvm.tuner import __all__ as _names

__all__ = [*_names, "xgboost_cost_model"]
