"""TVM's ``tvm.script.ir`` (``I``): ``@I.ir_module`` over a class of ``@T.prim_func`` methods."""

from __future__ import annotations

from typing import Any

from lower.lower import LoweredFunc
from lower.module import IRModule


def ir_module(cls: Any) -> IRModule:
    """The module of the class's ``@T.prim_func`` methods, by their names."""
    if not isinstance(cls, type):
        raise TypeError(f"I.ir_module decorates a class of @T.prim_func methods, got {type(cls).__name__}")
    functions = {name: f for name, f in vars(cls).items() if isinstance(f, LoweredFunc)}
    if not functions:
        raise ValueError(f"I.ir_module: the class {cls.__name__!r} has no @T.prim_func method")
    return IRModule(functions)


__all__ = ["ir_module"]
