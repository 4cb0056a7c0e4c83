"""TVM's ``tvm.tir.expr``: the expression nodes, ``Any`` (an unknown dimension) and the
``EqualOp``/``NotEqualOp`` names (ours: ``a == b`` is an ``EQ`` node whose ``bool()`` is
structural equality, so no separate class is made)."""

from __future__ import annotations

from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Broadcast,
    Call,
    Cast,
    Div,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Let,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    ProducerLoad,
    Ramp,
    Reduce,
    Select,
    SizeVar,
    StringImm,
    Sub,
    Var,
    _node,
)
from schedule.ir.expr import Expr as PrimExpr


class EqualOp(EQ):
    """``a == b`` (TVM builds this deferred form; ours is the ``EQ`` node itself)."""

    def asobject(self) -> EQ:
        return self


class NotEqualOp(NE):
    """``a != b`` (see :class:`EqualOp`)."""

    def asobject(self) -> NE:
        return self


@_node
class Any(Var):
    """An unknown dimension (TVM's ``tir.Any``): an int32 variable of its own, equal only to itself."""

    name: str = "?"
    dtype: str = "int32"


Any.visit_name = "var"  # visited, printed and compared as the variable it is


__all__ = ["EQ", "GE", "GT", "LE", "LT", "NE", "Add", "And", "Any", "Broadcast", "Call", "Cast", "Div", "EqualOp",
           "FloatImm", "FloorDiv", "FloorMod", "IntImm", "Let", "Max", "Min", "Mod", "Mul", "Not", "NotEqualOp", "Or",
           "PrimExpr", "ProducerLoad", "Ramp", "Reduce", "Select", "SizeVar", "StringImm", "Sub", "Var"]
