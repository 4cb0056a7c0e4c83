"""TVM's ``tvm.autotvm.task``: ``tune.autotvm.task``."""

from tune.autotvm.task import *  # noqa: F403
