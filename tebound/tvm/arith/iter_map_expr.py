"""TVM's iterator map expressions: an :class:`IterMark` (an iterator over ``[0, extent)``: a
variable or a sum of splits), an :class:`IterSplitExpr` (``((source // lower_factor) % extent)
* scale``) and an :class:`IterSumExpr` (splits plus a base); and their value as an ordinary
expression (:func:`normalize_iter_map_to_expr`)."""

from __future__ import annotations

from typing import Any

from schedule.ir import arith
from schedule.ir.arith import convert
from schedule.ir.expr import EQ, Expr, IntImm, Var, _node
from tebound.tvm.arith.analyzer import Analyzer


class IterMapExpr(Expr):
    """Base of the iterator map expressions."""


def _expr(owner: str, name: str, value: Any) -> Expr:
    try:
        return convert(value)
    except TypeError:
        raise TypeError(f"{owner}: {name} must be an expression, not {type(value).__name__}") from None


@_node
class IterMark(IterMapExpr):
    """An iterator: *source* (a variable or an IterSumExpr) taking the values ``[0, extent)``.
    Splits refer to a mark by identity."""

    source: Expr
    extent: Expr

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", _expr("IterMark", "source", self.source))
        object.__setattr__(self, "extent", _expr("IterMark", "extent", self.extent))

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.source.dtype

    def print_with(self, printer: Any) -> str:
        return f"IterMark({printer(self.source)}, extent={printer(self.extent)})"


@_node
class IterSplitExpr(IterMapExpr):
    """``((source // lower_factor) % extent) * scale`` of the mark *source*; TVM's
    constructor forms: ``(mark)``, ``(mark, scale)`` and ``(mark, lower_factor, extent, scale)``."""

    source: IterMark
    lower_factor: Any = None
    extent: Any = None
    scale: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.source, IterMark):
            raise TypeError(f"IterSplitExpr: the source is an IterMark, not {type(self.source).__name__}")
        one = arith.const(1, self.source.dtype)
        if self.extent is None and self.scale is None:  # (mark) or (mark, scale)
            scale = one if self.lower_factor is None else self.lower_factor
            object.__setattr__(self, "lower_factor", one)
            object.__setattr__(self, "extent", self.source.extent)
            object.__setattr__(self, "scale", scale)
        for name in ("lower_factor", "extent", "scale"):
            value = getattr(self, name)
            if value is None:
                raise TypeError(f"IterSplitExpr: {name} is missing; pass (mark), (mark, scale) or "
                                "(mark, lower_factor, extent, scale)")
            object.__setattr__(self, name, _expr("IterSplitExpr", name, value))

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.source.dtype

    def print_with(self, printer: Any) -> str:
        return (f"IterSplit({printer(self.source)}, lower_factor={printer(self.lower_factor)}, "
                f"extent={printer(self.extent)}, scale={printer(self.scale)})")


@_node
class IterSumExpr(IterMapExpr):
    """``sum(args) + base``."""

    args: tuple[IterSplitExpr, ...]
    base: Expr

    def __post_init__(self) -> None:
        args = tuple(self.args)
        for a in args:
            if not isinstance(a, IterSplitExpr):
                raise TypeError(f"IterSumExpr: the arguments are IterSplitExprs, not {type(a).__name__}")
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "base", _expr("IterSumExpr", "base", self.base))

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.base.dtype

    def print_with(self, printer: Any) -> str:
        return f"IterSum([{', '.join(printer(a) for a in self.args)}], {printer(self.base)})"


def to_expr(e: Any, analyzer: Any) -> Expr:
    """*e* with its iterator map expressions written as ordinary arithmetic (TVM's
    ``IterMapToExprNormalizer``); *analyzer* proves extents equal."""
    if isinstance(e, IterSplitExpr):
        return _split_to_expr(e, analyzer)
    if isinstance(e, IterSumExpr):
        return _sum_to_expr(e, analyzer)
    if isinstance(e, IterMark):
        return to_expr(e.source, analyzer)
    return e


def _sum_to_expr(e: IterSumExpr, analyzer: Any) -> Expr:
    res: Expr = arith.const(0, e.dtype)
    for a in e.args:
        res = arith.add(res, _split_to_expr(a, analyzer))
    return arith.add(res, e.base)


def _split_to_expr(e: IterSplitExpr, analyzer: Any) -> Expr:
    src = e.source.source
    source = src if isinstance(src, Var) else to_expr(src, analyzer)
    mark_extent = e.source.extent
    if analyzer.can_prove(EQ(*arith.match_types(e.extent, mark_extent))) and is_one(e.lower_factor):
        return arith.mul(source, e.scale)
    if analyzer.can_prove(EQ(*arith.match_types(mark_extent, arith.mul(e.lower_factor, e.extent)))):
        return arith.mul(arith.floordiv(source, e.lower_factor), e.scale)
    return arith.mul(arith.floordiv(arith.floormod(source, arith.mul(e.lower_factor, e.extent)), e.lower_factor),
                     e.scale)


def is_one(e: Any) -> bool:
    """The integer constant 1."""
    return isinstance(e, IntImm) and e.value == 1


def is_zero(e: Any) -> bool:
    """The integer constant 0."""
    return isinstance(e, IntImm) and e.value == 0


def normalize_iter_map_to_expr(e: Any) -> Expr:
    """*e* (an iterator map expression, or one holding them) as an ordinary expression."""
    return to_expr(e, Analyzer())
