"""Workloads as TVM's auto_scheduler names them: a function returning a computation's tensors
(``@register_workload``), and a key, the JSON text of its name and arguments
(``'["matmul_add", 1024, 1024, 1024, "float32"]'``), that a log keeps and a fresh process
turns back into the tensors."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from schedule import Tensor

#: The registered workload functions, by name; and the tensors of DAGs, by their keys (TVM's
#: ``WORKLOAD_FUNC_REGISTRY``).
WORKLOADS: dict[str, Any] = {}


def register_workload_tensors(key: str, tensors: Sequence[Tensor]) -> str:
    """Registers the tensors of a DAG under its workload *key* (a later registration wins)."""
    WORKLOADS[key] = list(tensors)
    return key


def register_workload(func_name: Any, f: Callable[..., Any] | None = None, override: bool = False) -> Any:
    """Registers a function returning a computation's tensors (inputs, then outputs), under its
    name or *func_name*: ``@register_workload``, ``@register_workload("name")`` or
    ``register_workload("name", f)``. Registering a name again needs *override*."""
    if callable(func_name) and f is None:  # named as TVM names it: nested functions by their qualified name
        f, name = func_name, func_name.__qualname__
    elif isinstance(func_name, str) and func_name:
        name = func_name
    else:
        raise TypeError(f"register_workload: give a function, or a non-empty name, got {func_name!r}")

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(fn):
            raise TypeError(f"register_workload: {name!r} needs a function, got {fn!r}")
        if name in WORKLOADS and WORKLOADS[name] is not fn and not override:
            raise ValueError(f"register_workload: {name!r} is already registered; pass override=True to replace it")
        WORKLOADS[name] = fn
        return fn
    return register(f) if f is not None else register


def make_workload_key(func: Any, args: Sequence[Any]) -> str:
    """The key of registered function *func* (or its name) on *args*."""
    name = func if isinstance(func, str) else getattr(func, "__qualname__", None)
    if name not in WORKLOADS or (not isinstance(func, str) and WORKLOADS[name] is not func):
        raise ValueError(f"auto_scheduler: {name or func!r} is not a registered workload; decorate it with "
                         "@auto_scheduler.register_workload")
    try:
        return json.dumps([name, *args])
    except TypeError:
        raise TypeError(f"auto_scheduler: the arguments of {name!r} are numbers, strings and lists of them, "
                        f"got {tuple(args)!r}") from None


def workload_tensors(key: str) -> list[Tensor]:
    """The tensors the workload of *key* returns (or that were registered under it)."""
    if isinstance(WORKLOADS.get(key), list):
        return list(WORKLOADS[key])
    try:
        name, *args = json.loads(key)
    except (TypeError, ValueError):
        raise ValueError(f"auto_scheduler: {key!r} is not a workload key (JSON of a name and arguments)") from None
    if name not in WORKLOADS:
        raise ValueError(f"auto_scheduler: no workload is registered as {name!r}; register it before using its key")
    tensors = WORKLOADS[name](*args)
    if not isinstance(tensors, (list, tuple)) or not tensors or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"auto_scheduler: workload {name!r} returns a list of tensors (inputs, then outputs), "
                        f"got {tensors!r}")
    return list(tensors)
