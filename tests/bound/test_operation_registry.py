"""Each kind of operation finds its bound rules and its lowering through its class and then its
bases; a kind nobody registered is an internal error naming what is missing."""

from __future__ import annotations

import pytest

import schedule as te
from bound.operation import bounds_of
from bound.operation.compute import ComputeBounds
from lower.operation import lowering_of
from lower.operation.compute import ComputeLowering
from schedule import InternalError
from schedule.operation.by_kind import ByKind


class MyCompute(te.ComputeOp):
    """A subclass of a known kind, registered by nobody."""


class Unknown(te.Operation):
    name = "U"
    tag = ""


def test_a_subclass_gets_its_base_kind_and_an_unknown_kind_is_named():
    A = te.placeholder((4,), name="A")
    op = MyCompute("B", "", {}, te.compute((4,), lambda i: A[i] + 1).op.axis, (A[0] + 1,))
    assert isinstance(bounds_of(op), ComputeBounds) and isinstance(lowering_of(op), ComputeLowering)
    with pytest.raises(InternalError, match="operation 'U' of kind Unknown has no bound rules"):
        bounds_of(Unknown())
    with pytest.raises(InternalError, match="has no lowering"):
        lowering_of(Unknown())


def test_a_registered_kind_takes_precedence_over_its_base():
    table = ByKind[str]("colour", {te.ComputeOp: "red"})
    A = te.placeholder((4,), name="A")
    op = MyCompute("B", "", {}, te.compute((4,), lambda i: A[i] + 1).op.axis, (A[0] + 1,))
    assert table.of(op) == "red"
    table.register(MyCompute, "blue")
    assert table.of(op) == "blue" and table.of(te.compute((4,), lambda i: A[i]).op) == "red"
