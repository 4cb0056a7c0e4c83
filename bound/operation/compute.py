"""Computes: a region over their axes, reads written in their body."""

from __future__ import annotations

from collections.abc import Collection

from bound.operation.access import Access, body_reads
from bound.operation.base import OperationBounds
from schedule.ir.itervar import IterVar
from schedule.operation.compute import ComputeOp
from schedule.operation.tensor import Operation, Tensor


class ComputeBounds(OperationBounds):
    exact_regions = True

    def region_axes(self, op: Operation) -> list[IterVar]:
        assert isinstance(op, ComputeOp)
        return list(op.axis)

    def reads(self, op: Operation, tensors: Collection[Tensor]) -> list[Access]:
        assert isinstance(op, ComputeOp)
        return body_reads(op.body, tensors)
