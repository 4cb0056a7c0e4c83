"""TVM's ``tvm.autotvm.measure``: ``tune.autotvm.measure``."""

from tune.autotvm.measure import *  # noqa: F403
