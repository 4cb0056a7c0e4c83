"""Extern operations in the loop nest."""

from __future__ import annotations

from lower.errors import LoweringError
from lower.operation.base import OperationLowering, PipelineBuilder
from lower.stmt import Stmt
from schedule.stage import Stage


class ExternLowering(OperationLowering):
    def produce(self, b: PipelineBuilder, st: Stage) -> Stmt:
        raise LoweringError(f"stage '{st.name}': extern operations cannot be lowered to loops yet; "
                            "compute it with te.compute instead")
