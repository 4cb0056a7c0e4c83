"""TVM's ``tvm.runtime.convert`` and ``tvm.runtime.enabled`` (which target kinds compile here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lower.target import CPU_KINDS, GPU_KINDS
from schedule.ir.arith import convert as _convert


def convert(value: Any) -> Any:
    """*value* as TVM's ``convert`` gives it: numbers and expressions as expressions, lists and
    tuples as lists of converted items, dicts with converted values, and other objects (text,
    tensors, functions) as they are."""
    if isinstance(value, (list, tuple)):
        return [convert(x) for x in value]
    if isinstance(value, Mapping):
        return {k: convert(v) for k, v in value.items()}
    try:
        return _convert(value)
    except TypeError:
        return value


def kind_enabled(kind: str) -> bool:
    """Whether this project compiles targets of *kind* (``llvm``, ``cuda`` ...)."""
    return kind in CPU_KINDS or kind in GPU_KINDS


def enabled(target: Any) -> bool:
    """Whether this project builds for *target*'s kind (TVM's ``tvm.runtime.enabled``): the CPU
    kinds, and the GPU kinds (run on the CPU with a GPU's semantics)."""
    kind = target.split()[0] if isinstance(target, str) else getattr(getattr(target, "kind", None), "name", "")
    return kind_enabled({"cpu": "llvm", "gpu": "cuda"}.get(kind, kind))
