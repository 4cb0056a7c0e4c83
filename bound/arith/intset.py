"""The integer-set interface: symbolic intervals and isl sets behind one set of operations."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bound.arith.interval import IntervalSet


class IntSet(ABC):
    """A set of integer points of :attr:`ndim` dimensions, possibly with symbolic parameters."""

    @property
    @abstractmethod
    def ndim(self) -> int: ...

    @abstractmethod
    def union(self, other: IntSet) -> IntSet:
        """A set containing both (exact for isl sets, the hull for intervals)."""

    @abstractmethod
    def intersect(self, other: IntSet) -> IntSet: ...

    @abstractmethod
    def is_empty(self) -> bool:
        """Whether the set is provably empty."""

    @abstractmethod
    def box(self) -> tuple[IntervalSet, ...]:
        """The smallest box containing the set: one interval per dimension."""
