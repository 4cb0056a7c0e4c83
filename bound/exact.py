"""Exact regions with isl: what a consumer reads of a producer, per execution of its attach scope.

The consumer's iteration domain is built from its leaves: loops the producer lives inside
(and threads that do not share its storage) are parameters; the others are existential
dimensions bounded by their ranges. Every IterVar above the leaves is constrained to its
inferred range and the roots to their domains, exactly the guards the lowered loops obey, so
split tails are exact. A read contributes ``{index(point) : point in domain, condition}``.
Anything that is not quasi-affine raises :class:`~bound.errors.NonAffineError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bound.access import Access
from bound.isl_bridge import Builder, IslNames, IslSet
from bound.simplify import simplify
from schedule import arith
from schedule.expr import Expr, Mul, Select, Var
from schedule.functor import free_vars, substitute
from schedule.itervar import IterVar, Range
from schedule.relation_passing import pass_up_index
from schedule.relations import Fuse, Rebase, Split
from schedule.stage import Stage


@dataclass
class LoopView:
    """How the producer sees a consumer's loops (the outcome of TVM's phase 1).

    *leaf_values* gives each leaf's value (itself, its thread variable, or the minimum of an
    extent-1 range); *relaxed* the consumer's own loops the producer's region spans and
    *relaxed_outer* those of the loops around the consumer, with ranges; *fixed* the loop
    variables the producer is computed inside of, with ranges.
    """

    leaf_values: dict[IterVar, Expr]
    relaxed: dict[Var, Range]
    relaxed_outer: dict[Var, Range]
    fixed: dict[Var, Range]

    @property
    def all_relaxed(self) -> dict[Var, Range]:
        return {**self.relaxed, **self.relaxed_outer}


def _in_range(value: Expr, r: Range) -> Expr:
    return arith.logical_and(arith.ge(value, r.min), arith.lt(value, arith.add(r.min, r.extent)))


def nonempty_extent(e: Expr) -> Expr:
    """*e* with every ``select(c, 0, x)`` replaced by ``x``.

    An extent is zero where its stage has nothing to do; a loop of that extent runs no
    iteration there, so as a split or fuse factor the non-zero branch is exactly equivalent.
    """
    if isinstance(e, Select):
        t, f = e.true_value, e.false_value
        if arith.value_of(t) == 0:
            return nonempty_extent(f)
        if arith.value_of(f) == 0:
            return nonempty_extent(t)
        return arith.select(e.condition, nonempty_extent(t), nonempty_extent(f))
    if isinstance(e, Mul):
        return arith.mul(nonempty_extent(e.a), nonempty_extent(e.b))
    return e


def iteration_constraints(cs: Stage, ret: Mapping[IterVar, Range], view: LoopView
                          ) -> tuple[dict[Var, Expr], list[Expr]]:
    """Root values of *cs* (root var -> expression in loop vars) and the guards its loops obey."""
    values: dict[IterVar, Expr] = dict(view.leaf_values)
    factors = {iv: Range.from_min_extent(r.min, nonempty_extent(r.extent)) for iv, r in ret.items()}
    pass_up_index(cs, factors, values)
    guards: list[Expr] = [_in_range(v, r) for v, r in view.all_relaxed.items()]
    guards += [_in_range(v, r) for v, r in view.fixed.items()]
    inner_ivs: list[IterVar] = []
    for rel in cs.relations:
        match rel:
            case Split(parent=p):
                inner_ivs.append(p)
            case Fuse(outer=o, inner=i):
                inner_ivs.extend((o, i))
            case Rebase(parent=p):
                inner_ivs.append(p)
    for iv in inner_ivs:
        guards.append(_in_range(values[iv], ret[iv]))
    roots = cs.op.root_iter_vars
    for iv in roots:
        if iv.dom is not None:
            guards.append(_in_range(values[iv], iv.dom))
    return {iv.var: values[iv] for iv in roots}, guards


def read_region(accesses: Sequence[Access], root_values: Mapping[Var, Expr], guards: Sequence[Expr],
                relaxed: Sequence[Var], names: IslNames) -> IslSet:
    """The union over *accesses* of the elements read, as a set over ``a0, a1, ...``."""
    ndim = len(accesses[0].indices)
    dims = [names.fresh(f"a{d}") for d in range(ndim)]
    rows = [([substitute(i, root_values) for i in acc.indices], substitute(acc.condition, root_values))
            for acc in accesses]
    exprs = [*guards, *(c for _, c in rows), *(i for idx, _ in rows for i in idx)]
    relaxed_set = set(relaxed)
    params = [names[v] for v in free_vars(exprs) if v not in relaxed_set]
    b = Builder(names, [*(names[v] for v in relaxed), *dims], params)
    region: IslSet | None = None
    for index, cond in rows:
        s = b.where([*guards, cond], list(zip(dims, index))).project_onto(dims)
        region = s if region is None else region.union(s)
    assert region is not None
    return region.renamed([f"a{d}" for d in range(ndim)])


def region_ranges(region: IslSet, fixed: Mapping[Var, Range],
                  names: Mapping[Var, tuple[int | None, int | None]], shape_vars: Sequence[Var] = ()) -> list[Range]:
    """The per-dimension hull of *region* as ranges in the loop variables of *fixed* and the
    named bounds of *names* (with their constant bounds); *shape_vars* are at least 0."""
    guards = [_in_range(v, r) for v, r in fixed.items()]
    used = set(free_vars(guards))
    for name in region.param_names:
        used.add(region.names.var(name))
    for v in used & names.keys():
        lo, hi = names[v]
        if lo is not None:
            guards.append(arith.ge(v, lo))
        if hi is not None:
            guards.append(arith.le(v, hi))
    ranges = {**names, **fixed}
    return [Range.from_min_extent(simplify(lo, ranges), simplify(extent, ranges))
            for lo, extent in region.box_ranges(guards, nonnegative=shape_vars)]
