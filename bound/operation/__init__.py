"""Bound rules per kind of operation, one module each, behind :class:`OperationBounds`; the
registry looks them up by the operation's class."""

from bound.operation.access import Access
from bound.operation.base import OperationBounds
from bound.operation.registry import bounds_of, reads, register

__all__ = ["Access", "OperationBounds", "bounds_of", "reads", "register"]
