"""Scans: computed whole (every step, every spatial index); they read their update at the
current step and their init whole."""

from __future__ import annotations

from collections.abc import Collection

from bound.operation.access import Access
from bound.operation.base import OperationBounds
from schedule import arith
from schedule.operation.scan import ScanOp
from schedule.operation.tensor import Operation, Tensor


class ScanBounds(OperationBounds):
    """TVM slices a scan's spatial axes where a fix-point analysis allows; here a scan always
    computes its whole output, which is what a consumer of a whole recurrence reads."""

    def reads(self, op: Operation, tensors: Collection[Tensor]) -> list[Access]:
        assert isinstance(op, ScanOp)
        out = []
        spatial = iter(op.spatial_axis)
        for u in op.update:
            axes = [next(spatial).var for _ in range(1, len(u.shape))]
            if u in tensors:
                out.append(Access(u, (op.scan_axis.var, *axes), arith.const(True)))
        return out

    def reads_whole(self, op: Operation, tensors: Collection[Tensor]) -> list[Tensor]:
        assert isinstance(op, ScanOp)
        return [t for t in op.init if t in tensors]
