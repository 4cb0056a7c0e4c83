"""TVM's ``tvm.autotvm.task.dispatcher``: the dispatch contexts of ``tune.autotvm``."""

from tune.autotvm.dispatch import ApplyConfig, DispatchContext, FallbackContext
from tune.autotvm.history import ApplyHistoryBest, apply_history_best

__all__ = ["ApplyConfig", "ApplyHistoryBest", "DispatchContext", "FallbackContext", "apply_history_best"]
