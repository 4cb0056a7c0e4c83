"""Placeholders are the program's inputs: nothing to lower."""

from __future__ import annotations

from lower.errors import LoweringError
from lower.operation.base import OperationLowering, PipelineBuilder
from lower.stmt import Stmt
from schedule.schedule.stage import Stage


class PlaceholderLowering(OperationLowering):
    def produce(self, b: PipelineBuilder, st: Stage) -> Stmt:
        raise LoweringError(f"stage '{st.name}' is a placeholder: an input of the program, not computed")
