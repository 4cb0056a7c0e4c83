"""TVM's ``tvm.autotvm.task``: ``tune.autotvm.task``, with its modules ``space``,
``dispatcher`` and ``task``."""

from tebound.tvm.autotvm.task import dispatcher, space, task
from tune.autotvm.dispatch import ApplyConfig, DispatchContext, FallbackContext
from tune.autotvm.history import ApplyHistoryBest
from tune.autotvm.space import ConfigEntity, ConfigSpace
from tune.autotvm.task import Task, create, get_config, template

__all__ = ["ApplyConfig", "ApplyHistoryBest", "ConfigEntity", "ConfigSpace", "DispatchContext", "FallbackContext",
           "Task", "create", "dispatcher", "get_config", "space", "task", "template"]
