"""TVM's ``tvm.ir.make_node``, for the node types a program builds by name here."""

from __future__ import annotations

from typing import Any

from schedule.base.memory_info import MemoryInfo

_NODES = {"MemoryInfo": MemoryInfo}


def make_node(type_key: str, **fields: Any) -> Any:
    """A node of *type_key* with *fields* (``make_node("MemoryInfo", unit_bits=16, ...)``).

    :raises ValueError: for a type this project does not build by name.
    """
    if type_key not in _NODES:
        raise ValueError(f"make_node: {type_key!r} is not a node built by name here; the ones that are: "
                         f"{', '.join(_NODES)}")
    return _NODES[type_key](**fields)
