"""TVM's ``auto_scheduler.utils``: workload keys and function names."""

import json
from typing import Any

from topi.utils import get_const_int, get_const_tuple


def get_func_name(func: Any) -> str:
    """The name a workload function is registered under."""
    return func.func_name if hasattr(func, "func_name") else func.__qualname__


def decode_workload_key(workload_key: str) -> tuple[str, Any]:
    """The function name (or DAG hash) and the arguments of *workload_key* (None when it is
    not JSON of a list)."""
    try:
        key = json.loads(workload_key)
    except ValueError:
        return workload_key, None
    if isinstance(key, list) and key:
        return key[0], tuple(key[1:])
    return workload_key, None


def calc_workload_dis_factor(target_workload_pair: Any, workload_pair: Any) -> float:
    """How far a workload is from a target one: 1 when the same, inf unless both name the same
    function (or DAG) with arguments of one structure whose integers each divide the target's
    (a zero only matching a zero) and whose other values are equal; else the product of the
    target's integers over the workload's."""
    target_name, target_args = target_workload_pair
    name, args = workload_pair
    if target_name != name or target_args is None or args is None:
        return float("inf")
    factor = 1.0
    stack = [(target_args, args)]
    while stack:
        t, w = stack.pop()
        if isinstance(t, (list, tuple)) and isinstance(w, (list, tuple)):
            if len(t) != len(w):
                return float("inf")
            stack += list(zip(t, w))
        elif isinstance(t, int) and isinstance(w, int) and not isinstance(t, bool) and not isinstance(w, bool):
            if t == w:
                continue
            if t == 0 or w == 0 or t % w:
                return float("inf")
            factor *= t // w
        elif t != w:
            return float("inf")
    return factor


__all__ = ["calc_workload_dis_factor", "decode_workload_key", "get_const_int", "get_const_tuple", "get_func_name"]
