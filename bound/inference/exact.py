"""Exact regions with isl: what a consumer reads of a producer, per execution of its attach scope.

The consumer's iteration domain is built from its leaves: loops the producer lives inside
(and threads that do not share its storage) are parameters; the others are existential
dimensions bounded by their ranges. Every IterVar above the leaves is constrained to its
inferred range and the roots to their domains, exactly the guards the lowered loops obey, so
split tails are exact. A read contributes ``{index(point) : point in domain, condition}``.
Anything that is not quasi-affine raises :class:`~bound.errors.NonAffineError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bound.arith.simplify import needed_ranges, simplify
from bound.errors import NonAffineError
from bound.isl import Builder, IslNames, IslSet, dim_bounds, pw_aff_to_expr
from bound.operation.access import Access
from schedule import arith
from schedule.ir.expr import Expr, Mul, Select, Var
from schedule.ir.functor import free_vars, substitute
from schedule.ir.itervar import IterVar, Range
from schedule.schedule.relation_passing import pass_up_index
from schedule.schedule.relations import Fuse, Rebase, Split
from schedule.schedule.stage import ATTACHED, Stage


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
    """Root values of *cs* (root var -> expression in loop vars) and the guards its loops obey
    (but those of the fixed loops, which :func:`read_region` adds where the region needs them)."""
    values, ranges = iteration_ranges(cs, ret, view)
    guards = [_in_range(v, r) for v, r in view.all_relaxed.items()]
    return values, guards + [_in_range(value, r) for value, r in ranges]


def iteration_ranges(cs: Stage, ret: Mapping[IterVar, Range], view: LoopView
                     ) -> tuple[dict[Var, Expr], list[tuple[Expr, Range]]]:
    """Root values of *cs* and the ranges its split, fused and rebased IterVars and its roots
    keep, as ``(value, range)``, beside those of the relaxed loops themselves."""
    values: dict[IterVar, Expr] = dict(view.leaf_values)
    own = [*cs.all_iter_vars, *cs.leaf_iter_vars, *(rel.rebased for rel in cs.relations if isinstance(rel, Rebase))]
    factors = {iv: Range.from_min_extent(ret[iv].min, nonempty_extent(ret[iv].extent)) for iv in own if iv in ret}
    pass_up_index(cs, factors, values)
    inner_ivs: list[IterVar] = []
    for rel in cs.relations:
        match rel:
            case Split(parent=p):
                inner_ivs.append(p)
            case Fuse(outer=o, inner=i):
                inner_ivs.extend((o, i))
            case Rebase(parent=p):
                inner_ivs.append(p)
    ranges = [(values[iv], ret[iv]) for iv in inner_ivs]
    roots = cs.op.root_iter_vars
    for iv in roots:
        if iv not in values:  # an opaque root (a scan's spatial axis): no loop gives its value
            raise NonAffineError(f"stage '{cs.name}': root '{iv.name}' has no loop")
    ranges += [(values[iv], iv.dom) for iv in roots if iv.dom is not None]
    return {iv.var: values[iv] for iv in roots}, ranges


def connected(guards: Sequence[Expr], seeds: set[Var], ranges: Mapping[Var, Range] | None = None
              ) -> list[Expr]:
    """The guards that share a variable with *seeds*, directly or through other guards, and
    ``lo <= v < lo + extent`` for each variable *v* of *ranges* so reached.

    The others only bound loops the region does not depend on: leaving them out keeps the
    isl problem as small as what it is about (a stage deep in a pipeline sits inside
    hundreds of loops, each a parameter otherwise). Constant guards are kept.
    """
    ranges = ranges or {}
    vars_of = [free_vars([g]) for g in guards]
    by_var: dict[Var, list[int]] = {}
    for k, vs in enumerate(vars_of):
        for v in vs:
            by_var.setdefault(v, []).append(k)
    kept = {k for k, vs in enumerate(vars_of) if not vs}
    pending = list(seeds)
    reached = set(seeds)
    in_ranges: list[Var] = []

    def reach(vs: Sequence[Var]) -> None:
        for v in vs:
            if v not in reached:
                reached.add(v)
                pending.append(v)
    while pending:
        v = pending.pop()
        r = ranges.get(v)
        if r is not None:
            in_ranges.append(v)
            reach(free_vars([r.min, r.extent]))
        for k in by_var.get(v, ()):
            if k not in kept:
                kept.add(k)
                reach(vars_of[k])
    order = {v: n for n, v in enumerate(ranges)}
    return ([g for k, g in enumerate(guards) if k in kept]
            + [_in_range(v, ranges[v]) for v in sorted(in_ranges, key=order.__getitem__)])


def read_region(accesses: Sequence[Access], root_values: Mapping[Var, Expr], guards: Sequence[Expr],
                relaxed: Sequence[Var], names: IslNames, fixed: Mapping[Var, Range] | None = None) -> IslSet:
    """The union over *accesses* of the elements read, as a set over ``a0, a1, ...``; *fixed*
    gives the ranges of the loops the region is per iteration of."""
    ndim = len(accesses[0].indices)
    dims = [names.fresh(f"a{d}") for d in range(ndim)]
    rows = [([substitute(i, root_values) for i in acc.indices], substitute(acc.condition, root_values))
            for acc in accesses]
    reads = [*(c for _, c in rows), *(i for idx, _ in rows for i in idx)]
    guards = connected(guards, set(free_vars(reads)) | set(relaxed), fixed)
    exprs = [*guards, *reads]
    relaxed_set = set(relaxed)
    params = [names[v] for v in free_vars(exprs) if v not in relaxed_set]
    b = Builder(names, [*(names[v] for v in relaxed), *dims], params)
    region: IslSet | None = None
    for index, cond in rows:
        s = b.where([*guards, cond], list(zip(dims, index))).project_onto(dims)
        region = s if region is None else region.union(s)
    assert region is not None
    return region.renamed([f"a{d}" for d in range(ndim)])


def region_guards(region: IslSet, fixed: Mapping[Var, Range],
                  names: Mapping[Var, tuple[int | None, int | None]]) -> list[Expr]:
    """What is known of *region*'s parameters: the ranges of the loops among them (and of
    the loops their ranges use), and the constant bounds of the named bounds among them."""
    params = {region.names.var(name) for name in region.param_names}
    guards = connected([], params, fixed)
    used = set(free_vars(guards)) | params
    for v in used & names.keys():
        lo, hi = names[v]
        if lo is not None:
            guards.append(arith.ge(v, lo))
        if hi is not None:
            guards.append(arith.le(v, hi))
    return guards


@dataclass
class ExactRegion:
    """A stage's region per execution of its attach scope where it is not a box: the set
    (over ``a0, a1, ...``) and what is known of its parameters."""

    region: IslSet
    guards: list[Expr]
    restore: Callable[[Expr], Expr]  # writes the named bounds of the set's parameters out


def region_ranges(region: IslSet, fixed: Mapping[Var, Range],
                  names: Mapping[Var, tuple[int | None, int | None]], shape_vars: Sequence[Var] = ()) -> list[Range]:
    """The per-dimension hull of *region* as ranges in the loop variables of *fixed* and the
    named bounds of *names* (with their constant bounds); *shape_vars* are at least 0."""
    guards = region_guards(region, fixed, names)
    out = []
    for lo, extent in region.box_ranges(guards, nonnegative=shape_vars):
        ranges = needed_ranges([lo, extent], {**names, **fixed})
        out.append(Range.from_min_extent(simplify(lo, ranges), simplify(extent, ranges)))
    return out


#: Beyond this many loops, a largest value is not worth an isl problem.
_ISL_LOOPS = 16


def largest_over_loops(e: Expr, loops: Mapping[Var, Range]) -> int | None:
    """The largest value *e* takes over the iterations of *loops* (whose ranges may use outer
    loops), exactly, with isl; None if it depends on other variables or is not quasi-affine."""
    found = largest_expr_over_loops(e, loops, ())
    return arith.value_of(found) if found is not None else None  # type: ignore[return-value]


def largest_expr_over_loops(e: Expr, loops: Mapping[Var, Range], shape_vars: Sequence[Var]) -> Expr | None:
    """:func:`largest_over_loops` as an expression in the shape variables *shape_vars* (known
    non-negative); None if *e* depends on other variables, is not quasi-affine or unbounded."""
    used: list[Var] = []
    params: list[Var] = []
    pending = free_vars([e])
    while pending:
        v = pending.pop()
        if v in used or v in params:
            continue
        r = loops.get(v)
        if r is None and v in shape_vars:
            params.append(v)
            continue
        if r is None or len(used) >= _ISL_LOOPS:
            return None
        used.append(v)
        pending.extend(free_vars([r.min, r.extent]))
    names = IslNames()
    value = names.fresh("value")
    try:
        b = Builder(names, [*(names[v] for v in used), value], [names[v] for v in params])
        conditions = [arith.logical_and(arith.ge(v, loops[v].min),
                                        arith.lt(v, arith.add(loops[v].min, loops[v].extent)))
                      for v in used]
        conditions += [arith.ge(v, 0) for v in params]
        s = b.where(conditions, [(value, e)]).project_onto([value])
        if not params:
            hi = s.max_of(value)
            return arith.const(hi, e.dtype) if hi is not None else None
        return simplify(pw_aff_to_expr(dim_bounds(s.isl, value)[1], names, e.dtype, s.isl.params()))
    except NonAffineError:
        return None


def plain_axes(stage: Stage) -> bool:
    """Whether *stage*'s loops are its axes in order, at most rebased (as normalize leaves them)."""
    parents = [rel.parent if isinstance(rel, Rebase) else None for rel in stage.relations]
    axes = list(stage.op.axis)  # type: ignore[attr-defined]
    if stage.relations and parents != axes:
        return False
    leaves = [rel.rebased for rel in stage.relations] if stage.relations else axes
    return list(stage.leaf_iter_vars) == leaves


def affine_loops(stage: Stage, ranges: Mapping[IterVar, Range] | None = None) -> bool:
    """Whether each of *stage*'s loops is a quasi-affine function of its axes: splits by a
    constant factor, fusions of a constant inner extent (checked when *ranges* are given),
    rebases, and no reduction."""
    if getattr(stage.op, "reduce_axis", ()):
        return False
    for rel in stage.relations:
        match rel:
            case Split(factor=f) if f is not None and arith.value_of(f) is not None:
                continue
            case Fuse(inner=i) if ranges is None or (i in ranges and arith.value_of(ranges[i].extent) is not None):
                continue
            case Rebase():
                continue
        return False
    return True


def visits_exact_set(stage: Stage, stages: Sequence[Stage], ranges: Mapping[IterVar, Range]) -> bool:
    """Whether lowering visits *stage*'s exact region point by point (when InferBound found it is
    not a box): its loops are affine in its axes, with no annotation, and no stage is attached
    inside them."""
    return (affine_loops(stage, ranges) and not stage.iter_var_attrs
            and not any(st.attach_type in ATTACHED and st.attach_stage is stage for st in stages))
