"""Placeholders: inputs of the program, whole and never computed."""

from __future__ import annotations

from bound.operation.base import OperationBounds
from schedule.operation.tensor import Operation


class PlaceholderBounds(OperationBounds):
    def is_input(self, op: Operation) -> bool:
        return True
