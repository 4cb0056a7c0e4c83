"""TVM's ``tvm.autotvm.record``: ``tune.autotvm.record``."""

from tune.autotvm.record import *  # noqa: F403
