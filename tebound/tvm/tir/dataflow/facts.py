"""What is known about buffer contents at a point: facts ``buffer[a] == value`` for the
positions ``a`` of a region, and helpers on expressions the analyses share."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bound.isl.positions import AXIS, Region
from lower.ir.stmt import Buffer, Load
from schedule.ir import arith
from schedule.ir.expr import Broadcast, Expr, Ramp, Var
from schedule.ir.functor import ExprMutator, free_vars, post_order_visit, structural_equal, substitute
from tebound.tvm.arith.analyzer import Analyzer


@dataclass(frozen=True)
class Fact:
    """``buffer[a] == value`` for every position ``a`` in *region*; *value* may use
    :data:`~tebound.tvm.tir.dataflow.regions.AXIS` for the position."""

    buffer: Buffer
    value: Expr
    region: Region


def merge(*groups: Iterable[Fact]) -> list[Fact]:
    """The facts of all *groups*, one per buffer and value (their regions joined)."""
    out: list[Fact] = []
    for group in groups:
        for f in group:
            if f.region.is_empty():
                continue
            for k, g in enumerate(out):
                if g.buffer is f.buffer and structural_equal(g.value, f.value):
                    out[k] = Fact(g.buffer, g.value, g.region.union(f.region).coalesce())
                    break
            else:
                out.append(f)
    return out


def same_facts(a: list[Fact], b: list[Fact]) -> bool:
    """Whether *a* and *b* say the same (as :func:`merge` groups them)."""
    if len(a) != len(b):
        return False
    for f in a:
        match = [g for g in b if g.buffer is f.buffer and structural_equal(g.value, f.value)]
        if len(match) != 1 or not match[0].region.is_equal(f.region):
            return False
    return True


def loads(e: Expr) -> list[Load]:
    found: list[Load] = []
    post_order_visit(e, lambda x: found.append(x) if isinstance(x, Load) else None)
    return found


def has_load(e: Expr) -> bool:
    return bool(loads(e))


class ReplaceLoads(ExprMutator):
    """An expression with the loads in *values* (by identity) replaced."""

    bottom_up = False

    def __init__(self, values: dict[int, Expr]) -> None:
        self.values = values

    def visit_load(self, e: Load) -> Expr:
        return self.values.get(id(e), e)


def lanes_of(index: Expr, value: Expr, lane: Var) -> tuple[Expr, Expr, tuple[Var, int] | None]:
    """A vector store's index and value as scalars of *lane* (``ramp(b, s, n)`` is
    ``b + s*lane``, a broadcast its value), with the lanes' range; scalars stay as they are."""
    n = index.lanes if isinstance(index, Ramp) else None
    if n is None:
        return index, value, None

    def scalar(e: Expr) -> Expr | None:
        if isinstance(e, Ramp):
            return arith.add(e.base, arith.mul(e.stride, lane))
        if isinstance(e, Broadcast):
            return e.value
        return None if e.dtype.endswith(f"x{n}") else e
    i, v = scalar(index), scalar(value)
    if i is None or v is None:
        return index, value, None
    return i, v, (lane, n)


def in_axis_terms(value: Expr, index: Expr, analyzer: Analyzer) -> Expr:
    """*value* with a variable the (affine) *index* determines written through the position:
    at ``a = i + 3``, ``2*i`` becomes ``2*(a - 3)``."""
    for x in free_vars([value]):
        if x not in set(free_vars([index])):
            continue
        at0 = analyzer.simplify(substitute(index, {x: 0}))
        slope = analyzer.simplify(arith.sub(substitute(index, {x: 1}), at0))
        if x in set(free_vars([at0])) or getattr(slope, "value", None) not in (1, -1):
            continue
        if not analyzer.can_prove_equal(index, arith.add(at0, arith.mul(slope, x))):
            continue
        solved = arith.sub(AXIS, at0) if slope.value == 1 else arith.sub(at0, AXIS)
        return analyzer.simplify(substitute(value, {x: solved}))
    return value
