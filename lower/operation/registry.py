"""The lowering of each kind of operation, looked up by the operation's class (a new kind
registers its own)."""

from __future__ import annotations

from lower.operation.base import OperationLowering
from lower.operation.compute import ComputeLowering
from lower.operation.extern import ExternLowering
from lower.operation.hybrid import HybridLowering
from lower.operation.placeholder import PlaceholderLowering
from lower.operation.scan import ScanLowering
from schedule.operation.by_kind import ByKind
from schedule.operation.compute import ComputeOp
from schedule.operation.extern import ExternOp
from schedule.operation.hybrid.op import HybridOp
from schedule.operation.placeholder import PlaceholderOp
from schedule.operation.scan import ScanOp
from schedule.operation.tensor import Operation

_LOWERINGS = ByKind[OperationLowering]("lowering", {
    PlaceholderOp: PlaceholderLowering(),
    ComputeOp: ComputeLowering(),
    ExternOp: ExternLowering(),
    HybridOp: HybridLowering(),
    ScanOp: ScanLowering(),
})


def register(kind: type, lowering: OperationLowering) -> None:
    """Give operations of class *kind* (and its subclasses) their lowering."""
    _LOWERINGS.register(kind, lowering)


def lowering_of(op: Operation) -> OperationLowering:
    """The lowering of *op*'s kind."""
    return _LOWERINGS.of(op)
