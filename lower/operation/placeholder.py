"""Placeholders are the program's inputs: nothing to lower."""

from __future__ import annotations

from lower.errors import LoweringError
from lower.ir.stmt import Stmt
from lower.operation.base import OperationLowering, PipelineBuilder
from schedule.schedule.stage import Stage


class PlaceholderLowering(OperationLowering):
    def produce(self, b: PipelineBuilder, st: Stage) -> Stmt:
        raise LoweringError(f"stage '{st.name}' is a placeholder: an input of the program, not computed")
