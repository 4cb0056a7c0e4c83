"""TVM's ``tvm.autotvm.measure``: ``tune.autotvm.measure``, with TVM's module names."""

from tebound.tvm.autotvm.measure import executor, measure, measure_methods
from tune.autotvm.measure import *  # noqa: F403
from tune.autotvm.measure import __all__ as _names

__all__ = [*_names, "measure", "measure_methods"]
