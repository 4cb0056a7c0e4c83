"""TVM's ``tvm.autotvm.tuner.xgboost_cost_model``: ``tune.autotvm.tuner.xgboost_cost_model``."""

from tune.autotvm.tuner.xgboost_cost_model import XGBoostCostModel

__all__ = ["XGBoostCostModel"]
