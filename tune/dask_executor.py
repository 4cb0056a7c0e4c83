"""Running tuning jobs on a Dask cluster when one machine is not enough (``pip install
'tebound[distributed]'``).

Each job becomes a Dask task that runs it, on the worker's host, in a spawned process of its
own (:class:`~tune.executor.LocalExecutor`): a hang is killed at its timeout and a crash costs
that job, as locally, instead of blocking or killing a Dask worker. Results are the same
:class:`~tune.executor.JobResult` objects, so tuners, logs and callbacks do not change.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from tune.executor import JobResult, LocalExecutor, check_jobs

_local = threading.local()


class NoWorkersError(RuntimeError):
    """The Dask cluster has no worker to run tuning jobs (none joined, or the last one left)."""


def _isolated(fn: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> JobResult:
    """On a Dask worker thread: *fn(*args)* in this thread's own worker process."""
    executor = getattr(_local, "executor", None)
    if executor is None:
        executor = _local.executor = LocalExecutor(1)
    (result,) = executor.run(fn, [args], timeout)
    return result


class DaskExecutor:
    """Jobs on the Dask cluster at *address* (``"tcp://host:8786"``), or of *client* or
    *cluster* (a ``LocalCluster`` for one machine); ``size`` is the cluster's thread count."""

    def __init__(self, address: str | None = None, *, client: Any = None, cluster: Any = None) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ImportError("DaskExecutor needs dask.distributed: pip install 'tebound[distributed]'") from None
        given = [x is not None for x in (address, client, cluster)]
        if sum(given) != 1:
            raise ValueError("DaskExecutor: give exactly one of a scheduler address, a client or a cluster")
        self._owns = client is None
        self.client = client if client is not None else Client(address if address is not None else cluster)

    @property
    def size(self) -> int:
        """The cluster's threads now (0 when it has no worker)."""
        return sum(self.client.nthreads().values())

    def run(self, fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]], timeout: float) -> list[JobResult]:
        """As :meth:`LocalExecutor.run`; a job the cluster loses (its worker gone) is a crash.

        :raises NoWorkersError: when the cluster has no worker, or has had none for *timeout*
            seconds while jobs wait.
        """
        from distributed import wait

        check_jobs(fn, jobs, timeout)
        if not jobs:
            return []
        if self.size == 0:
            raise NoWorkersError(f"DaskExecutor: the cluster at {self._where()} has no workers; start some "
                                 "(dask worker <scheduler address>) or use a LocalExecutor")
        futures = [self.client.submit(_isolated, fn, args, timeout, pure=False) for args in jobs]
        # each job has its own timeout on its worker; the margin covers queueing and start-up
        deadline = time.monotonic() + timeout * (1 + len(jobs) / max(1, self.size)) + 60
        alone_since = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                wait(futures, timeout=min(1.0, left))
                break
            except TimeoutError:
                pass
            if self.size:
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since > timeout:
                for f in futures:
                    f.cancel()
                raise NoWorkersError(f"DaskExecutor: the cluster at {self._where()} has had no workers for "
                                     f"{timeout:g} s while {sum(f.status == 'pending' for f in futures)} jobs "
                                     "waited; start workers or use a LocalExecutor")
        results = []
        for future in futures:
            if future.status == "finished":
                results.append(future.result())
            elif future.status == "error":
                results.append(JobResult("crash", f"the cluster lost the job: {future.exception()}", 0.0))
            else:
                future.cancel()
                results.append(JobResult("timeout", "the cluster did not run the job in time", 0.0))
        return results

    def _where(self) -> str:
        return str(getattr(self.client, "scheduler", None) and self.client.scheduler.address or "?")

    def close(self) -> None:
        if self._owns:
            self.client.close()

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
