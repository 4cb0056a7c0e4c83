"""Hybrid script (``te.hybrid.script``), as TVM's: a Python function with loops, conditions and
tensor accesses that runs on NumPy arrays as Python, and on tensors describes an extern
operation that lowers and builds like any other."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from schedule.base.errors import ScheduleTypeError
from schedule.operation.hybrid.parser import parse
from schedule.operation.hybrid.runtime import emulate
from schedule.operation.tensor import Tensor


class HybridFunction:
    """A hybrid script: called with tensors, its operation's output tensor(s); called with
    NumPy arrays and numbers, what the Python function computes. Called inside another
    script, its body is inlined there."""

    is_hybrid_script = True

    def __init__(self, func: Callable[..., Any]) -> None:
        self.func = func
        functools.update_wrapper(self, func)

    def __call__(self, *args: Any) -> Any:
        if any(_holds_tensor(a) for a in args):
            return parse(self.func, args)
        return emulate(self.func, args)


def _holds_tensor(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_tensor(v) for v in value)
    return isinstance(value, Tensor)


def script(func: Callable[..., Any]) -> HybridFunction:
    """Decorate a function written in hybrid script."""
    if not callable(func):
        raise ScheduleTypeError(f"hybrid.script decorates a function, not {type(func).__name__}")
    return HybridFunction(func)
