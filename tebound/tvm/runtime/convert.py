"""TVM's ``tvm.runtime.convert`` and ``tvm.runtime.enabled``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schedule.ir.arith import convert as _convert
from tebound.tvm.testing.targets import kind_enabled


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


def enabled(target: Any) -> bool:
    """Whether this project builds for *target*'s kind (TVM's ``tvm.runtime.enabled``): the CPU
    kinds, and the GPU kinds (run on the CPU with a GPU's semantics)."""
    kind = target.split()[0] if isinstance(target, str) else getattr(getattr(target, "kind", None), "name", "")
    return kind_enabled({"cpu": "llvm", "gpu": "cuda"}.get(kind, kind))
