"""Functions registered by name, called from lowered code (``call_packed``), as TVM's
``register_func``: a Python function receives NumPy arrays for buffers and numbers for scalars."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedule.base.checks import check_name
from schedule.base.errors import ScheduleError, ScheduleTypeError

_FUNCS: dict[str, Callable[..., Any]] = {}


def register_func(name: Any, f: Callable[..., Any] | None = None, override: bool = False) -> Any:
    """Register *f* as *name* (a decorator when *f* is omitted, or when *name* is the function)."""
    if callable(name) and f is None:
        return register_func(name.__name__, name, override)
    check_name("register_func", name)

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(fn):
            raise ScheduleTypeError(f"register_func '{name}': {fn!r} is not callable")
        if name in _FUNCS and not override:
            raise ScheduleError(f"register_func: '{name}' is already registered; pass override=True")
        _FUNCS[name] = fn
        return fn
    return register(f) if f is not None else register


def get_global_func(name: str, allow_missing: bool = False) -> Callable[..., Any] | None:
    """The function registered as *name*."""
    fn = _FUNCS.get(name)
    if fn is None and not allow_missing:
        raise ValueError(f"no function is registered as '{name}'; register it with te.register_func")
    return fn
