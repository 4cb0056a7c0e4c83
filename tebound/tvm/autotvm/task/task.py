"""TVM's ``tvm.autotvm.task.task``: ``Task``, ``create``, ``template`` and the FLOP counter
``compute_flop``."""

from tune.autotvm.flop import compute_flop
from tune.autotvm.task import Task, create, get_config, template

__all__ = ["Task", "compute_flop", "create", "get_config", "template"]
