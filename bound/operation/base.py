"""What bound inference needs to know of one kind of operation (TVM's OperationNode).

InferBound, explain and the access analysis ask these questions of every operation and never
look at its class: which IterVars span its output region (GatherBound sets their ranges from
what consumers request; every other root keeps its domain), what it reads of its inputs as
index expressions over its roots (PropBoundToInputs), and which inputs it reads whole.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from bound.operation.access import Access
from schedule import arith
from schedule.ir.itervar import IterVar, Range
from schedule.operation.tensor import Operation, Tensor


class OperationBounds:
    """The bound rules of one kind of operation; the defaults suit an operation that computes
    nothing from its inputs (a placeholder)."""

    #: Whether its region per execution may be found exactly (isl, or a box without it), and
    #: then visited point by point in its own loops.
    exact_regions = False

    def region_axes(self, op: Operation) -> list[IterVar]:
        """The IterVars whose ranges are the region it computes, one per output dimension;
        empty if it computes its outputs whole (an input, an extern call)."""
        return []

    def reads(self, op: Operation, tensors: Collection[Tensor]) -> list[Access]:
        """Its reads of *tensors*, indexed by its root IterVars' variables."""
        return []

    def reads_whole(self, op: Operation, tensors: Collection[Tensor]) -> list[Tensor]:
        """Those of *tensors* it reads whole, whatever its region."""
        return []

    def computes_nothing(self, op: Operation, ranges: Mapping[IterVar, Range]) -> bool:
        """Whether *ranges* leave it nothing to compute (then it reads nothing either)."""
        return any(arith.value_of(ranges[iv].extent) == 0 for iv in self.region_axes(op) if iv in ranges)

    def is_input(self, op: Operation) -> bool:
        """Whether it is data the program is given: never computed, never lowered."""
        return False
