"""A value per kind of operation (its bound rules, its lowering ...), found through the
operation's class and then its bases, so that a subclass of a known kind gets that kind's."""

from __future__ import annotations

from typing import Generic, TypeVar

from schedule.base.errors import InternalError
from schedule.operation.tensor import Operation

T = TypeVar("T")


class ByKind(Generic[T]):
    """*what* (such as "bound rules") for each class of operation in *table*."""

    def __init__(self, what: str, table: dict[type, T]) -> None:
        self.what = what
        self._table = dict(table)

    def register(self, kind: type, value: T) -> None:
        """Give operations of class *kind* (and its subclasses) *value*."""
        self._table[kind] = value

    def of(self, op: Operation) -> T:
        """The value of *op*'s kind."""
        for cls in type(op).__mro__:
            value = self._table.get(cls)
            if value is not None:
                return value
        raise InternalError(f"operation '{op.name}' of kind {type(op).__name__} has no {self.what}")
