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

import islpy as isl

from bound.access import Access
from bound.errors import NonAffineError
from bound.isl_bridge import Builder, IslNames, dim_bounds, free_vars, project_onto, pw_aff_to_expr
from bound.simplify import simplify
from schedule import arith
from schedule.expr import Expr, Var
from schedule.functor import substitute
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


def iteration_constraints(cs: Stage, ret: Mapping[IterVar, Range], view: LoopView
                          ) -> tuple[dict[Var, Expr], list[Expr]]:
    """Root values of *cs* (root var -> expression in loop vars) and the guards its loops obey."""
    values: dict[IterVar, Expr] = dict(view.leaf_values)
    pass_up_index(cs, ret, values)
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
                relaxed: Sequence[Var], names: IslNames) -> isl.Set:
    """The union over *accesses* of the elements read, as a set over ``a0, a1, ...``."""
    ndim = len(accesses[0].indices)
    dims = [names.fresh(f"a{d}") for d in range(ndim)]
    rows = []
    for acc in accesses:
        index = [substitute(i, root_values) for i in acc.indices]
        cond = substitute(acc.condition, root_values)
        rows.append((index, cond))
    exprs = [*guards, *(c for _, c in rows), *(i for idx, _ in rows for i in idx)]
    relaxed_names = [names[v] for v in relaxed]
    params = [names[v] for v in free_vars(exprs) if v not in set(relaxed)]
    b = Builder(names, [*relaxed_names, *dims], params)
    domain = b.universe()
    for g in guards:
        domain = domain & b.condition(g)
    region = None
    for index, cond in rows:
        s = domain & b.condition(cond)
        for name, idx in zip(dims, index):
            s = s & b.var(name).eq_set(b.pw_aff(idx))
        s = project_onto(s, dims)
        region = s if region is None else region | s
    assert region is not None
    return _rename_dims(region, [f"a{d}" for d in range(ndim)])


def _rename_dims(s: isl.Set, new: Sequence[str]) -> isl.Set:
    for k, name in enumerate(new):
        s = s.set_dim_name(isl.dim_type.set, k, name)
    return s


def union_regions(regions: Sequence[isl.Set]) -> isl.Set:
    result = regions[0]
    for r in regions[1:]:
        a, b = isl.align_two(result, r)
        result = a | b
    return result.coalesce()


def intersect_shape(region: isl.Set, shape: Sequence[Expr], names: IslNames) -> isl.Set:
    """*region* restricted to the tensor's index box ``[0, shape)`` (skipped if not affine)."""
    dims = [region.get_dim_name(isl.dim_type.set, d) for d in range(region.dim(isl.dim_type.set))]
    try:
        params = [names[v] for v in free_vars(shape)]
        b = Builder(names, dims, params)
        box = b.universe()
        for name, extent in zip(dims, shape):
            box = box & b.var(name).ge_set(b.pw_aff(arith.const(0, extent.dtype))) \
                & b.var(name).lt_set(b.pw_aff(extent))
    except NonAffineError:
        return region
    a, b2 = isl.align_two(region, box)
    return a & b2


def region_box(region: isl.Set, fixed: Mapping[Var, Range], names: IslNames, dtype: str = "int32"
               ) -> list[Range]:
    """The per-dimension hull of *region* as ranges in the parameters.

    Where the region is empty for some values of the loop variables in *fixed*, the extent is
    zero there.
    """
    ranges = {v: r for v, r in fixed.items()}
    context = _context(region, fixed, names)
    nonempty = region.params()
    gaps = context.subtract(nonempty) if context is not None else None
    out = []
    for d in range(region.dim(isl.dim_type.set)):
        lo, hi = dim_bounds(region, region.get_dim_name(isl.dim_type.set, d))
        extent = hi - lo + 1
        if gaps is not None and not gaps.is_empty():
            zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(gaps.space)).intersect_domain(gaps)
            extent = extent.union_add(zero)
        ctx = context if context is not None else nonempty
        lo_e = simplify(pw_aff_to_expr(lo, names, dtype, ctx), ranges)
        ext_e = simplify(pw_aff_to_expr(extent, names, dtype, ctx), ranges)
        out.append(Range.from_min_extent(lo_e, ext_e))
    return out


def _context(region: isl.Set, fixed: Mapping[Var, Range], names: IslNames) -> isl.Set | None:
    """The parameter values the loops in *fixed* take (None when nothing is known)."""
    param_names = [region.get_dim_name(isl.dim_type.param, k) for k in range(region.dim(isl.dim_type.param))]
    guards = [_in_range(v, r) for v, r in fixed.items() if names[v] in param_names]
    if not guards:
        return None
    b = Builder(names, [], param_names)
    ctx = b.universe()
    for g in guards:
        try:
            ctx = ctx & b.condition(g)
        except NonAffineError:
            continue
    return ctx.params()
