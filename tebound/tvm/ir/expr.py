"""TVM's ``tvm.ir.expr``: ``Range``, the expression base classes and ``GlobalVar``."""

from __future__ import annotations

from schedule.ir.expr import Expr as PrimExpr
from schedule.ir.itervar import Range


class GlobalVar:
    """A function of a module, by name; a call of one is opaque to the analysis (its effects
    are unknown)."""

    def __init__(self, name_hint: str) -> None:
        if not isinstance(name_hint, str):
            raise TypeError(f"GlobalVar: the name is a string, not {type(name_hint).__name__}")
        self.name_hint = name_hint

    def __str__(self) -> str:
        return f"@{self.name_hint}"

    __repr__ = __str__


__all__ = ["GlobalVar", "PrimExpr", "Range"]
