"""TVM's ``tvm.driver.build_module``: ``schedule_to_module`` (a schedule's lowered module)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lower.module import IRModule
from tebound.tvm.driver import lower


def schedule_to_module(sch: Any, args: Sequence[Any] | None = None, name: str = "main", binds: Any = None) -> IRModule:
    """The module of *sch* over *args* under *name*, TVM's bounds. Our lowering flattens the
    buffers already, so ``tir.transform.StorageFlatten`` after it changes nothing."""
    return IRModule({name: lower(sch, args, name=name, binds=binds)})
