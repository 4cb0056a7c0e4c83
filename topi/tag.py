"""The tags TVM's operators carry (``op.tag``), which schedules dispatch on: an element-wise
operator is ``elemwise``, a broadcasting one ``broadcast``, any other index remapping
``injective``, a reduction ``comm_reduce`` (``comm_reduce_idx`` when it returns an index)."""

from __future__ import annotations

from typing import Any

ELEMWISE = "elemwise"
BROADCAST = "broadcast"
INJECTIVE = "injective"
COMM_REDUCE = "comm_reduce"
COMM_REDUCE_IDX = "comm_reduce_idx"


def is_broadcast(tag: Any) -> bool:
    """Element-wise or broadcasting (TVM's ``tag.is_broadcast``)."""
    return isinstance(tag, str) and (tag in (ELEMWISE, BROADCAST) or tag.startswith(ELEMWISE + ","))


def is_injective(tag: Any) -> bool:
    """Any operator whose output element reads a fixed set of input elements."""
    return is_broadcast(tag) or (isinstance(tag, str) and tag.startswith(INJECTIVE))

__all__ = ["BROADCAST", "COMM_REDUCE", "COMM_REDUCE_IDX", "ELEMWISE", "INJECTIVE", "is_broadcast", "is_injective"]
