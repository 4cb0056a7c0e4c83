"""The bound rules of each kind of operation, looked up by the operation's class (a new kind
registers its own)."""

from __future__ import annotations

from collections.abc import Collection

from bound.operation.access import Access
from bound.operation.base import OperationBounds
from bound.operation.compute import ComputeBounds
from bound.operation.extern import ExternBounds
from bound.operation.placeholder import PlaceholderBounds
from bound.operation.scan import ScanBounds
from schedule.base.errors import InternalError
from schedule.operation.compute import ComputeOp
from schedule.operation.extern import ExternOp
from schedule.operation.placeholder import PlaceholderOp
from schedule.operation.scan import ScanOp
from schedule.operation.tensor import Operation, Tensor

_RULES: dict[type, OperationBounds] = {
    PlaceholderOp: PlaceholderBounds(),
    ComputeOp: ComputeBounds(),
    ExternOp: ExternBounds(),
    ScanOp: ScanBounds(),
}


def register(kind: type, rules: OperationBounds) -> None:
    """Give operations of class *kind* (and its subclasses) their bound rules."""
    _RULES[kind] = rules


def bounds_of(op: Operation) -> OperationBounds:
    """The bound rules of *op*'s kind."""
    for cls in type(op).__mro__:
        rules = _RULES.get(cls)
        if rules is not None:
            return rules
    raise InternalError(f"operation '{op.name}' of kind {type(op).__name__} has no bound rules")


def reads(op: Operation, tensors: Collection[Tensor]) -> list[Access]:
    """What *op* reads of *tensors*, element by element, over its root IterVars."""
    return bounds_of(op).reads(op, tensors)
