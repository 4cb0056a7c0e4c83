"""Tuners (TVM's ``autotvm.tuner``)."""

from tune.autotvm.tuner.droplet import DropletTuner
from tune.autotvm.tuner.ga_tuner import GATuner
from tune.autotvm.tuner.index_tuners import GridSearchTuner, IndexBaseTuner, RandomTuner
from tune.autotvm.tuner.tuner import Tuner
from tune.autotvm.tuner.xgb_tuner import XGBTuner

__all__ = ["DropletTuner", "GATuner", "GridSearchTuner", "IndexBaseTuner", "RandomTuner", "Tuner", "XGBTuner"]
