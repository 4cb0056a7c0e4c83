"""Exact regions without isl where a consumer's reads are translations of a box.

The consumer iterates over a box (each relaxed loop over its range, every other guard
implied), and each read index in each dimension is one relaxed loop plus an offset that
differs between reads by constants. If the offsets form a grid whose steps do not exceed the
loop's extent, the union of the translated boxes is itself a box, and its per-dimension hull
is exact: ``[offset + lo + min step, offset + hi + max step]``. Stencil chains read this way,
so their regions need no isl problem at all; anything else returns None and goes to isl.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product

from bound.arith.const_bound import ConstBounds
from bound.arith.linear import Linear
from bound.operation.access import Access
from schedule import arith
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import free_vars, substitute
from schedule.ir.itervar import Range


class _Box:
    """The relaxed loops' ranges as linear sums, and constant bounds for proofs."""

    def __init__(self, box: Mapping[Var, Range], bounds: ConstBounds) -> None:
        self.lo = {v: Linear.of(r.min) for v, r in box.items()}
        self.extent = {v: Linear.of(r.extent) for v, r in box.items()}
        self.bounds = bounds

    def interval(self, lin: Linear) -> tuple[Linear, Linear] | None:
        """The exact hull of *lin* over the box (its other atoms held fixed); None if a
        relaxed loop occurs inside an atom."""
        lo = Linear(lin.dtype, const=lin.const)
        hi = Linear(lin.dtype, const=lin.const)
        for atom, k in lin.terms.items():
            if atom in self.lo:
                last = self.lo[atom].plus(self.extent[atom]).plus(Linear(lin.dtype, const=-1))
                first = self.lo[atom]
                lo.add_scaled(first if k > 0 else last, k)
                hi.add_scaled(last if k > 0 else first, k)
            elif any(v in self.lo for v in free_vars([atom])):
                return None
            else:
                lo.add_term(atom, k)
                hi.add_term(atom, k)
        return lo, hi

    def at_least(self, lin: Linear, value: int) -> bool:
        """Whether *lin* >= *value* wherever the known bounds hold."""
        lo, _ = lin.bound(self.bounds)
        return lo is not None and lo >= value


def translated_box(accesses: Sequence[Access], root_values: Mapping[Var, Expr],
                   constraints: Sequence[tuple[Expr, Range]], box: Mapping[Var, Range],
                   shape: Sequence[Expr], bounds: ConstBounds) -> list[tuple[Expr, Expr]] | None:
    """The region *accesses* read, as (min, extent) per dimension, if it is exactly a box
    found without isl; None otherwise.

    *root_values* writes the consumer's root variables in its loops; *box* gives the loops
    the region spans; *constraints* are the other ``value in range`` guards its loops obey,
    which must follow from *box*; *shape* is the producer's, which the reads must stay in.
    """
    if any(v in box for r in box.values() for v in free_vars([r.min, r.extent])):
        return None  # a loop's range depends on another relaxed loop: not a box
    b = _Box(box, bounds)
    one = Linear("int32", const=1)
    if not all(b.at_least(e, 1) for e in b.extent.values()):
        return None  # an empty box: isl knows what the region is then
    for value, r in constraints:
        hull = b.interval(Linear.of(value))
        if hull is None:
            return None
        lo, hi = Linear.of(r.min), Linear.of(r.min).plus(Linear.of(r.extent)).plus(one, -1)
        if not (b.at_least(hull[0].plus(lo, -1), 0) and b.at_least(hi.plus(hull[1], -1), 0)):
            return None
    ndim = len(shape)
    loops: list[Var | None] = [None] * ndim
    bases: list[Linear | None] = [None] * ndim
    steps: list[tuple[int, ...]] = []
    for acc in accesses:
        if arith.value_of(acc.condition) != 1:
            return None
        row = []
        for d, index in enumerate(acc.indices):
            lin = Linear.of(substitute(index, root_values))
            loop = _single_loop(lin, b)
            if loop is False:
                return None
            if bases[d] is None:
                loops[d], bases[d] = loop, lin
            elif loops[d] is not loop:
                return None
            diff = lin.plus(bases[d], -1)  # type: ignore[arg-type]
            if not diff.is_const:
                return None
            row.append(diff.const)
        steps.append(tuple(row))
    used = [v for v in loops if v is not None]
    if len(set(map(id, used))) != len(used):
        return None  # one loop in two dimensions: a diagonal, not a box
    per_dim = [sorted({s[d] for s in steps}) for d in range(ndim)]
    if set(steps) != set(product(*per_dim)):
        return None  # the translations do not form a grid
    out = []
    for d in range(ndim):
        base = bases[d]
        assert base is not None
        loop = loops[d]
        width = b.extent[loop] if loop is not None else one
        if any(not b.at_least(width, hi - lo) for lo, hi in zip(per_dim[d], per_dim[d][1:])):
            return None  # a gap between two translations
        first = base.plus(Linear(base.dtype, const=per_dim[d][0]))
        extent = width.plus(Linear(base.dtype, const=per_dim[d][-1] - per_dim[d][0]))
        if loop is not None:
            hull = b.interval(first)
            assert hull is not None
            first = hull[0]
        last = first.plus(extent).plus(one, -1)
        size = Linear.of(shape[d]).plus(one, -1)
        if not (b.at_least(first, 0) and b.at_least(size.plus(last, -1), 0)):
            return None  # clamped by the tensor's bounds: isl says where
        out.append((first.to_expr(), extent.to_expr()))
    return out


def _single_loop(lin: Linear, b: _Box) -> Var | None | bool:
    """The one relaxed loop *lin* uses with coefficient 1, None if it uses none, False if it
    uses more, another coefficient, or a loop inside an atom."""
    found: Var | None = None
    for atom, k in lin.terms.items():
        if atom in b.lo:
            if k != 1 or found is not None:
                return False
            found = atom  # type: ignore[assignment]
        elif any(v in b.lo for v in free_vars([atom])):
            return False
    return found
