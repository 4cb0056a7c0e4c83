"""Tuners (TVM's ``autotvm.tuner``)."""

from tune.autotvm.tuner.index_tuners import GridSearchTuner, RandomTuner
from tune.autotvm.tuner.tuner import Tuner
from tune.autotvm.tuner.xgb_tuner import XGBTuner

__all__ = ["GridSearchTuner", "RandomTuner", "Tuner", "XGBTuner"]
