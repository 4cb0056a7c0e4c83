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
from schedule.operation.by_kind import ByKind
from schedule.operation.compute import ComputeOp
from schedule.operation.extern import ExternOp
from schedule.operation.placeholder import PlaceholderOp
from schedule.operation.scan import ScanOp
from schedule.operation.tensor import Operation, Tensor

_RULES = ByKind[OperationBounds]("bound rules", {
    PlaceholderOp: PlaceholderBounds(),
    ComputeOp: ComputeBounds(),
    ExternOp: ExternBounds(),
    ScanOp: ScanBounds(),
})


def register(kind: type, rules: OperationBounds) -> None:
    """Give operations of class *kind* (and its subclasses) their bound rules."""
    _RULES.register(kind, rules)


def bounds_of(op: Operation) -> OperationBounds:
    """The bound rules of *op*'s kind."""
    return _RULES.of(op)


def reads(op: Operation, tensors: Collection[Tensor]) -> list[Access]:
    """What *op* reads of *tensors*, element by element, over its root IterVars."""
    return bounds_of(op).reads(op, tensors)
