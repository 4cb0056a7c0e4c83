"""TVM's ``tvm.autotvm.measure.measure_methods``: ``tune.autotvm.measure.local``."""

from tune.autotvm.measure.local import LocalBuilder, LocalRunner, run_trial

__all__ = ["LocalBuilder", "LocalRunner", "run_trial"]
