"""TVM's ``auto_scheduler.workload_registry``: the registered workloads and their keys, and
their transfer to another process (by pickling the function or the tensors)."""

from typing import Any

from tune.auto_scheduler.workload import WORKLOADS as WORKLOAD_FUNC_REGISTRY
from tune.auto_scheduler.workload import make_workload_key, register_workload, register_workload_tensors
from tune.auto_scheduler.workload import workload_tensors as workload_key_to_tensors


def serialize_workload_registry_entry(workload_key: str) -> tuple[str, Any]:
    """The registry entry of *workload_key* (a function name or a DAG's key), to pickle.

    :raises ValueError: when nothing is registered under it.
    """
    if workload_key not in WORKLOAD_FUNC_REGISTRY:
        raise ValueError(f"auto_scheduler: nothing is registered as {workload_key!r}")
    return workload_key, WORKLOAD_FUNC_REGISTRY[workload_key]


def deserialize_workload_registry_entry(data: tuple[str, Any]) -> None:
    """Registers an entry :func:`serialize_workload_registry_entry` gave (unless one is)."""
    key, value = data
    WORKLOAD_FUNC_REGISTRY.setdefault(key, value)


__all__ = ["WORKLOAD_FUNC_REGISTRY", "deserialize_workload_registry_entry", "make_workload_key",
           "register_workload", "register_workload_tensors", "serialize_workload_registry_entry",
           "workload_key_to_tensors"]
