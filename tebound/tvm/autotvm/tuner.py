"""TVM's ``tvm.autotvm.tuner``: the tuners of ``tune.autotvm.tuner``."""

from tune.autotvm.tuner import *  # noqa: F403
