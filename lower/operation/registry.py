"""The lowering of each kind of operation, looked up by the operation's class (a new kind
registers its own)."""

from __future__ import annotations

from lower.operation.base import OperationLowering
from lower.operation.compute import ComputeLowering
from lower.operation.extern import ExternLowering
from lower.operation.placeholder import PlaceholderLowering
from lower.operation.scan import ScanLowering
from schedule.base.errors import InternalError
from schedule.operation.compute import ComputeOp
from schedule.operation.extern import ExternOp
from schedule.operation.placeholder import PlaceholderOp
from schedule.operation.scan import ScanOp
from schedule.operation.tensor import Operation

_LOWERINGS: dict[type, OperationLowering] = {
    PlaceholderOp: PlaceholderLowering(),
    ComputeOp: ComputeLowering(),
    ExternOp: ExternLowering(),
    ScanOp: ScanLowering(),
}


def register(kind: type, lowering: OperationLowering) -> None:
    """Give operations of class *kind* (and its subclasses) their lowering."""
    _LOWERINGS[kind] = lowering


def lowering_of(op: Operation) -> OperationLowering:
    """The lowering of *op*'s kind."""
    for cls in type(op).__mro__:
        found = _LOWERINGS.get(cls)
        if found is not None:
            return found
    raise InternalError(f"operation '{op.name}' of kind {type(op).__name__} has no lowering")
