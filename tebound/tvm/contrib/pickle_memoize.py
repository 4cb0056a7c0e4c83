"""TVM's ``tvm.contrib.pickle_memoize``: ``memoize(key)`` caches what a function returns for each
set of arguments, so that a test's reference data is computed once per process (TVM's can also
keep it in a file across runs; this one keeps it in memory only)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_CACHES: dict[str, dict[Any, Any]] = {}


def memoize(key: str, save_at_exit: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Cache the decorated function's results under *key*, per argument tuple and per the values
    the function closes over.

    :raises TypeError: when *key* is not text.
    """
    if not isinstance(key, str):
        raise TypeError(f"memoize: the key is text, not {key!r}")
    cache = _CACHES.setdefault(key, {})

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        # A test's reference function reads its shapes from the enclosing function: the values
        # it closes over are part of the key, as in TVM.
        captured = tuple(_frozen(cell.cell_contents) for cell in func.__closure__ or ())

        @functools.wraps(func)
        def cached(*args: Any) -> Any:
            at = (func.__qualname__, captured, _frozen(args))
            if at not in cache:
                cache[at] = func(*args)
            return cache[at]
        return cached

    return decorate


def _frozen(value: Any) -> Any:
    """*value* as a hashable key (a tuple by its items; anything unhashable, such as a list that
    may change, by its identity)."""
    if isinstance(value, tuple):
        return tuple(_frozen(v) for v in value)
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return value
