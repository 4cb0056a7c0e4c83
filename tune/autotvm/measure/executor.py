"""TVM's executor interface for runners (``autotvm.measure.executor``): an object whose
``submit(func, *args, **kwargs)`` returns a future with ``result()``. A ``LocalRunner`` given
one submits each trial to it; our own executors (:mod:`tune.executor`) run lists of jobs
instead, with per-job timeouts and crash isolation."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from typing import Any


class Executor:
    """Base of submit-style executors; ``submit`` returns a ``concurrent.futures.Future``."""

    def submit(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        raise NotImplementedError(f"{type(self).__name__}.submit(func, *args, **kwargs) is not written")


class LocalFutureExecutor(Executor):
    """Runs each submitted call at once, in this process."""

    def submit(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        try:
            future.set_result(func(*args, **kwargs))
        except Exception as e:  # noqa: BLE001 - the future carries it
            future.set_exception(e)
        return future
