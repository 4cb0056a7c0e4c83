"""TVM's ``tvm.ir.expr``: ``Range`` and the expression base classes."""

from schedule.ir.expr import Expr as PrimExpr
from schedule.ir.itervar import Range

__all__ = ["PrimExpr", "Range"]
