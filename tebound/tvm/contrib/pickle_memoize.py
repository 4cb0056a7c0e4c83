"""TVM's ``tvm.contrib.pickle_memoize``: ``memoize(key)`` caches what a function returns for each
set of arguments, so that a test's reference data is computed once per process (TVM's can also
keep it in a file across runs; this one keeps it in memory only)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_CACHES: dict[str, dict[Any, Any]] = {}


def memoize(key: str, save_at_exit: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Cache the decorated function's results under *key*, per argument tuple (which must hash).

    :raises TypeError: when *key* is not text.
    """
    if not isinstance(key, str):
        raise TypeError(f"memoize: the key is text, not {key!r}")
    cache = _CACHES.setdefault(key, {})

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def cached(*args: Any) -> Any:
            if args not in cache:
                cache[args] = func(*args)
            return cache[args]
        return cached

    return decorate
