"""TVM's ``tvm.autotvm.measure.executor``: ``tune.autotvm.measure.executor``."""

from tune.autotvm.measure.executor import Executor, LocalFutureExecutor

__all__ = ["Executor", "LocalFutureExecutor"]
