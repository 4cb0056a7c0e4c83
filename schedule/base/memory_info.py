"""What a special memory scope holds (TVM's ``MemoryInfo``), looked up by the function
registered as ``tvm.info.mem.<scope>``: lowering refuses an allocation larger than it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schedule.base.packed import get_global_func


@dataclass(frozen=True)
class MemoryInfo:
    """A memory's unit of access, widest vector access and capacity, in bits."""

    unit_bits: int
    max_simd_bits: int
    max_num_bits: int
    head_address: Any = None


def memory_info(scope: str) -> Any:
    """The registered information of *scope*, or None (the function named
    ``tvm.info.mem.<scope>`` is called, as TVM does)."""
    fn = get_global_func(f"tvm.info.mem.{scope}", allow_missing=True)
    return None if fn is None else fn()


def memory_field(info: Any, name: str) -> Any:
    """Field *name* of a scope's information, given as a :class:`MemoryInfo` or a dict (None if
    it has none)."""
    return info.get(name) if isinstance(info, dict) else getattr(info, name, None)
