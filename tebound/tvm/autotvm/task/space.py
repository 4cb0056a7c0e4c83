"""TVM's ``tvm.autotvm.task.space``: ``tune.autotvm.space``."""

from tune.autotvm.space import *  # noqa: F403
