"""Extern operations: opaque calls that read their inputs whole and write their outputs whole."""

from __future__ import annotations

from collections.abc import Collection

from bound.operation.base import OperationBounds
from schedule.operation.extern import ExternOp
from schedule.operation.tensor import Operation, Tensor


class ExternBounds(OperationBounds):
    def reads_whole(self, op: Operation, tensors: Collection[Tensor]) -> list[Tensor]:
        assert isinstance(op, ExternOp)
        return [t for t in op.inputs if t in tensors]
