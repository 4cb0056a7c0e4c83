"""TVM's containers (``tvm.runtime.container``, also ``tvm.container``): here a map is a Python
dict and an array a list or tuple, so ``Map`` and ``Array`` are the checks ``isinstance`` makes
(``isinstance(bounds, tvm.container.Map)``), and calling one builds the container."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar


class _Kinds(type):
    kinds: tuple[type, ...]

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls.kinds)


class Map(dict, metaclass=_Kinds):
    """TVM's ``Map``: a dict whose ``items()`` is a list, as TVM's is (``m.items()[0]``); any
    mapping counts as one for ``isinstance``."""

    kinds: ClassVar[tuple[type, ...]] = (Mapping,)

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        return list(super().items())


class Array(metaclass=_Kinds):
    """TVM's ``Array``: a list (or tuple) here."""

    kinds: ClassVar[tuple[type, ...]] = (list, tuple)

    def __new__(cls, items: Any = ()) -> list:
        return list(items)


class String(str):
    """TVM's ``String``: a str."""


__all__ = ["Array", "Map", "String"]
