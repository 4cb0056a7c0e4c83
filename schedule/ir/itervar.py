"""Ranges and iteration variables (TVM's ``Range`` and ``IterVar``)."""

from __future__ import annotations

import enum
import weakref
from dataclasses import dataclass
from typing import Any, ClassVar

from schedule.base.checks import check_name
from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir.arith import convert, sub
from schedule.ir.dtype import is_index
from schedule.ir.expr import Expr, IntImm, Var
from schedule.ir.expr_like import ExprLike


class IterVarType(enum.IntEnum):
    """TVM's IterVar kinds, with TVM's numbering."""

    DataPar = 0
    ThreadIndex = 1
    CommReduce = 2
    Ordered = 3
    Opaque = 4
    Unrolled = 5
    Vectorized = 6
    Parallelized = 7
    Tensorized = 8


class Range:
    """A half-open integer range ``[min, min + extent)`` with expression ends.

    ``Range(begin, end)`` takes the ends, ``Range(end)`` starts at 0, and
    :meth:`from_min_extent` takes the minimum and the extent. Two ranges are equal when their
    minima and extents are structurally equal.
    """

    __slots__ = ("min", "extent")
    min: Expr
    extent: Expr

    def __init__(self, begin: Any, end: Any = None) -> None:
        if end is None:
            begin, end = 0, begin
        lo, hi = convert(begin), convert(end)
        object.__setattr__(self, "min", lo)
        object.__setattr__(self, "extent", sub(hi, lo))

    @classmethod
    def from_min_extent(cls, min_value: Any, extent: Any) -> Range:
        r = cls.__new__(cls)
        object.__setattr__(r, "min", convert(min_value))
        object.__setattr__(r, "extent", convert(extent))
        return r

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Range is immutable")

    def __reduce__(self) -> tuple:
        return Range.from_min_extent, (self.min, self.extent)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Range):
            return NotImplemented
        return bool(self.min == other.min) and bool(self.extent == other.extent)

    def __hash__(self) -> int:
        return hash((self.min, self.extent))

    def __repr__(self) -> str:
        return f"Range(min={self.min}, extent={self.extent})"

    __str__ = __repr__


@dataclass(frozen=True, eq=False, repr=False)
class IterVar(ExprLike):
    """An iteration variable: a loop variable with an optional domain.

    Axes of a compute carry their domain ``[0, shape_i)``; IterVars made by split and fuse have
    ``dom=None`` (bound inference gives them ranges). Hashed and compared by identity; in
    expressions an IterVar stands for its :attr:`var`.
    """

    dom: Range | None
    var: Var
    iter_type: IterVarType = IterVarType.DataPar
    thread_tag: str = ""

    # TVM's constants for the kinds (``IterVar.Unrolled``), as its tests compare them.
    DataPar: ClassVar[IterVarType] = IterVarType.DataPar
    ThreadIndex: ClassVar[IterVarType] = IterVarType.ThreadIndex
    CommReduce: ClassVar[IterVarType] = IterVarType.CommReduce
    Ordered: ClassVar[IterVarType] = IterVarType.Ordered
    DimInfo: ClassVar[IterVarType] = IterVarType.Opaque
    Unrolled: ClassVar[IterVarType] = IterVarType.Unrolled
    Vectorized: ClassVar[IterVarType] = IterVarType.Vectorized
    Parallelized: ClassVar[IterVarType] = IterVarType.Parallelized
    Tensorized: ClassVar[IterVarType] = IterVarType.Tensorized

    def __post_init__(self) -> None:
        if self.dom is not None and not isinstance(self.dom, Range):
            raise ScheduleTypeError(f"IterVar: dom must be a Range or None, not {type(self.dom).__name__}")
        if not isinstance(self.var, Var):
            raise ScheduleTypeError(f"IterVar: var must be a Var, not {type(self.var).__name__}")
        object.__setattr__(self, "iter_type", IterVarType(self.iter_type))

    __hash__ = object.__hash__

    @property
    def name(self) -> str:
        return self.var.name

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        if isinstance(other, IterVar):
            return self is other
        return NotImplemented

    def __repr__(self) -> str:
        dom = "" if self.dom is None else f"range(min={self.dom.min}, ext={self.dom.extent})"
        return f"iter_var({self.var.name}, {dom}, {self.thread_tag})"

    def as_expr(self) -> Expr:
        """In arithmetic an IterVar stands for its variable, as in TVM."""
        return self.var

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.iter_type == IterVarType.CommReduce:  # a copy's variable is a reduction's too
            REDUCE_VARS.add(self.var)


def _as_range(dom: Any, what: str) -> Range:
    if isinstance(dom, Range):
        return dom
    if isinstance(dom, (tuple, list)) and len(dom) == 2:
        return Range(dom[0], dom[1])
    raise ScheduleError(f"{what}: dom must be a Range or a (begin, end) pair, not {dom!r}")


#: The variables of reduction axes, so that a compute can refuse one used outside a reduction.
REDUCE_VARS: weakref.WeakSet[Var] = weakref.WeakSet()


def reduce_axis(dom: Any, name: str = "rv", thread_tag: str = "") -> IterVar:
    """A reduction axis over *dom*, a ``(begin, end)`` pair or a :class:`Range`.

    :raises ScheduleError: for an empty-by-construction range (its end below its begin).
    """
    check_name("reduce_axis", name)
    r = _as_range(dom, "reduce_axis")
    _check_index_dtype(r, "reduce_axis")
    extent = r.extent.value if isinstance(r.extent, IntImm) else None
    if extent is not None and extent < 0:
        raise ScheduleError(f"reduce_axis '{name}': the range ({r.min}, {r.min.value + extent}) ends before "
                            "it begins; give (begin, end) with begin <= end")
    iv = IterVar(r, Var(name, r.extent.dtype), IterVarType.CommReduce, thread_tag)
    REDUCE_VARS.add(iv.var)
    return iv


def thread_axis(dom: Any = None, tag: str = "", name: str = "") -> IterVar:
    """A thread axis such as ``threadIdx.x``; ``thread_axis("blockIdx.x")`` names it by its tag."""
    if isinstance(dom, str):
        tag, dom = dom, None
    check_name("thread_axis", name)
    if not isinstance(tag, str):
        raise ScheduleTypeError(f"thread_axis: the tag must be a string such as 'threadIdx.x', "
                                f"not {type(tag).__name__}")
    if not tag:
        raise ScheduleError("thread_axis: a thread tag such as 'threadIdx.x' is required")
    r = None if dom is None else _as_range(dom, "thread_axis")
    return IterVar(r, Var(name or tag), IterVarType.ThreadIndex, tag)


def _check_index_dtype(r: Range, what: str) -> None:
    for end in (r.min, r.extent):
        if not is_index(end.dtype):
            raise ScheduleError(f"{what}: range bound {end} is {end.dtype}, not an integer")
