"""Schedule search: TVM's autotvm (templates, tuners, logs) and the executors that measure
candidates in worker processes. Depends on schedule, bound and lower; nothing depends on it."""

from tune import autotvm
from tune.dask_executor import DaskExecutor, NoWorkersError
from tune.executor import JobResult, LocalExecutor

#: Marks the package as this project's (see bound.package_clash).
__tebound__ = True

__all__ = ["DaskExecutor", "JobResult", "LocalExecutor", "NoWorkersError", "autotvm"]
