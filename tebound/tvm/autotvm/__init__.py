"""TVM's ``tvm.autotvm``: ``tune.autotvm`` under TVM's module names (``autotvm.tuner``,
``autotvm.task``, ``autotvm.record``, ``autotvm.measure``, ``autotvm.callback``,
``autotvm.tophub``, ``autotvm.database``)."""

from tebound.tvm.autotvm import callback, database, feature, measure, record, task, tuner
from tune.autotvm import *  # noqa: F403
from tune.autotvm import __all__ as _names

__all__ = [*_names, "database", "feature", "measure"]
