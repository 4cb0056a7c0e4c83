"""TVM's ``tvm.autotvm.callback``: ``tune.autotvm.callback``."""

from tune.autotvm.callback import *  # noqa: F403
