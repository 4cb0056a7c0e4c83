"""Sets of integer points over named dimensions, and the builder that makes them from expressions."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import islpy as isl

from bound.arith.interval import IntervalSet
from bound.arith.intset import IntSet
from bound.errors import NonAffineError
from bound.isl.from_expr import _ToPwAff, _ToSet
from bound.isl.names import IslNames, make_space
from bound.isl.to_expr import dim_bounds, pw_aff_to_expr
from schedule import arith
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import free_vars

if TYPE_CHECKING:
    from bound.arith.interval import IntervalSet

_DT = isl.dim_type
#: isl's steps allowed to decide whether a set is a box. The hull of one projection of a strided
#: convolution's padded input (a parametric set with floors) ran for hours; this many steps
#: take about 0.2 s.
BOX_OPERATIONS = 200_000


@contextmanager
def bounded(ctx: isl.Context, operations: int) -> Iterator[None]:
    """isl's work on *ctx* limited to *operations* steps: a call past them raises ``isl.Error``.
    The count starts at entry and again at exit, when the limit before it comes back (so an
    enclosing budget counts afresh after an inner one)."""
    previous = ctx.get_max_operations()
    ctx.reset_operations()
    ctx.set_max_operations(operations)
    try:
        yield
    finally:
        ctx.set_max_operations(previous)
        ctx.reset_operations()


class StepLimit(RuntimeError):
    """isl ran past the steps a caller allowed it (:func:`step_limit`)."""


@contextmanager
def step_limit(operations: int) -> Iterator[None]:
    """The default context's work limited as :func:`bounded` does; a call past the limit (or
    any isl failure meanwhile) raises :class:`StepLimit`, for a caller that gives up on the
    computation rather than wait for isl."""
    with bounded(isl.DEFAULT_CONTEXT, operations):
        try:
            yield
        except isl.Error as e:
            raise StepLimit(f"isl ran past {operations} steps") from e


class Builder:
    """Converts expressions into isl objects over one space of named set dims and params."""

    def __init__(self, names: IslNames, set_vars: Sequence[str], param_vars: Sequence[str]) -> None:
        self.names = names
        self.space = make_space(set_vars, param_vars)
        self._aff = _ToPwAff(self.space, names)
        self._set = _ToSet(self._aff)

    def pw_aff(self, e: Expr) -> isl.PwAff:
        return self._aff(e)

    def condition(self, e: Expr) -> isl.Set:
        return self._set(e)

    def var(self, name: str) -> isl.PwAff:
        return self._aff._vars[name]

    def universe(self) -> isl.Set:
        return isl.Set.universe(self.space)

    def where(self, conditions: Iterable[Expr], equal: Sequence[tuple[str, Expr]] = ()) -> IslSet:
        """The points where every condition holds and each named dimension equals its expression."""
        s = self.universe()
        for c in conditions:
            s = s & self.condition(c)
        for name, value in equal:
            s = s & self.var(name).eq_set(self.pw_aff(value))
        return IslSet(s, self.names)


class IslSet(IntSet):
    """A set of integer points over named dimensions; free variables are isl parameters."""

    def __init__(self, s: isl.Set, names: IslNames) -> None:
        self.isl = s
        self.names = names

    @property
    def ndim(self) -> int:
        return self.isl.dim(_DT.set)

    @property
    def dim_names(self) -> list[str]:
        return [self.isl.get_dim_name(_DT.set, k) for k in range(self.ndim)]

    @property
    def param_names(self) -> list[str]:
        return [self.isl.get_dim_name(_DT.param, k) for k in range(self.isl.dim(_DT.param))]

    def _with(self, s: isl.Set) -> IslSet:
        return IslSet(s, self.names)

    def union(self, other: IntSet) -> IslSet:
        assert isinstance(other, IslSet)
        a, b = isl.align_two(self.isl, other.isl)
        return self._with((a | b).coalesce())

    def intersect(self, other: IntSet) -> IslSet:
        assert isinstance(other, IslSet)
        a, b = isl.align_two(self.isl, other.isl)
        return self._with(a & b)

    def is_empty(self) -> bool:
        return bool(self.isl.is_empty())

    def project_onto(self, keep: Sequence[str]) -> IslSet:
        """The set with every dimension but *keep* projected out (existentially)."""
        s = self.isl
        for k in reversed([k for k, n in enumerate(self.dim_names) if n not in set(keep)]):
            s = s.project_out(_DT.set, k, 1)
        return self._with(s)

    def renamed(self, new_names: Sequence[str]) -> IslSet:
        s = self.isl
        for k, name in enumerate(new_names):
            s = s.set_dim_name(_DT.set, k, name)
        return self._with(s)

    def constant_hull(self) -> list[tuple[int, int]] | None:
        """Per dimension, the least and the largest value of a set without parameters (which must
        be bounded); None if it is empty."""
        if self.isl.is_empty():
            return None
        return [(int(self.isl.dim_min_val(k).to_str()), int(self.isl.dim_max_val(k).to_str()))
                for k in range(self.ndim)]

    def within_box(self, extents: Sequence[Expr]) -> IslSet:
        """The points with ``0 <= x_k < extents[k]`` (unchanged if an extent is not affine)."""
        try:
            b = Builder(self.names, self.dim_names, [self.names[v] for v in free_vars(extents)])
            box = b.universe()
            for name, extent in zip(self.dim_names, extents):
                box = box & b.var(name).ge_set(b.var(name) * 0) & b.var(name).lt_set(b.pw_aff(extent))
        except NonAffineError:
            return self
        return self.intersect(IslSet(box, self.names))

    def is_box(self) -> bool:
        """Whether the set is, for every value of the parameters, the product of one interval
        per dimension (False may also mean that isl's hull of a dimension is not exact, or
        that finding it took more than :data:`BOX_OPERATIONS` of isl's steps)."""
        s = self.isl.coalesce()
        basics = s.get_basic_sets()
        n = s.dim(_DT.set)
        if len(basics) == 1 and basics[0].dim(_DT.div) == 0 and all(
                sum(1 for k in range(n) if not c.get_coefficient_val(_DT.set, k).is_zero()) <= 1
                for c in basics[0].get_constraints()):
            return True
        try:
            with bounded(s.get_ctx(), BOX_OPERATIONS):
                box = None
                for k in range(n):
                    side = isl.Set.from_basic_set(
                        s.project_out(_DT.set, k + 1, n - k - 1).project_out(_DT.set, 0, k).polyhedral_hull())
                    box = side if box is None else box.flat_product(side)
                if box is None:
                    return True
                box = box.reset_tuple_id()
                return bool(s.reset_tuple_id().is_subset(box) and box.is_subset(s.reset_tuple_id()))
        except isl.Error:
            return False

    def count(self) -> int:
        """The number of points of a bounded, parameter-free set."""
        return int(self.isl.count_val().to_python())

    def points(self) -> set[tuple[int, ...]]:
        """Every point of a bounded, parameter-free set."""
        out: set[tuple[int, ...]] = set()
        n = self.ndim

        def add(p: isl.Point) -> None:
            out.add(tuple(int(p.get_coordinate_val(_DT.set, k).to_python()) for k in range(n)))
        self.isl.foreach_point(add)
        return out

    def points_at(self, params: dict[str, int]) -> list[tuple[int, ...]]:
        """The points of the set where each parameter named in *params* has its value."""
        s = self.isl
        for name, value in params.items():
            s = s.fix_val(_DT.param, s.find_dim_by_name(_DT.param, name), isl.Val.int_from_si(s.get_ctx(), value))
        return sorted(IslSet(s, self.names).points())

    def max_of(self, name: str) -> int | None:
        """The largest value of dimension *name* in a parameter-free set (None if empty)."""
        v = self.isl.dim_max_val(self.isl.find_dim_by_name(_DT.set, name))
        return None if v.is_nan() or v.is_infty() or v.is_neginfty() else int(v.to_python())

    def box(self) -> tuple[IntervalSet, ...]:
        out = []
        for name in self.dim_names:
            lo, hi = dim_bounds(self.isl, name)
            out.append(IntervalSet(pw_aff_to_expr(lo, self.names), pw_aff_to_expr(hi, self.names)))
        return tuple(out)

    def box_ranges(self, loop_guards: Sequence[Expr], dtype: str = "int32",
                   nonnegative: Sequence[Var] = ()) -> list[tuple[Expr, Expr]]:
        """``(min, extent)`` per dimension of the hull, as expressions in the parameters.

        *loop_guards* bound the loop variables among the parameters, and the *nonnegative*
        ones (shape variables) are at least 0. Where the set is empty for some of their values
        the box is empty too: if none of the extents is zero there, the first one is.
        """
        nonempty = self.isl.params()
        guards = [*loop_guards, *(arith.ge(v, 0) for v in nonnegative if self.names[v] in self.param_names)]
        loops = self._context(guards)
        if loops is None:
            loops = isl.Set.universe(nonempty.space)
        context, gaps = isl.align_two(loops, nonempty)
        context, gaps = context, context.subtract(gaps)
        bounds = [dim_bounds(self.isl, name) for name in self.dim_names]
        extents = [(hi - lo).add_constant_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, 1)) for lo, hi in bounds]
        mins = [pw_aff_to_expr(lo, self.names, dtype, nonempty) for lo, _ in bounds]
        exprs = [pw_aff_to_expr(extent, self.names, dtype, context) for extent in extents]
        if exprs and not gaps.is_empty():
            unblocked = self._where_nonzero(gaps, exprs)
            if not unblocked.is_empty():
                g = unblocked.params().align_params(extents[0].space.params())
                first = extents[0].align_params(g.space)
                zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(g.space)).intersect_domain(g)
                # dim_max names its output after the set dimension; the filler must match.
                zero = zero.set_dim_id(_DT.out, 0, isl.Id(self.dim_names[0]))
                exprs[0] = pw_aff_to_expr(first.union_add(zero), self.names, dtype, context)
        return list(zip(mins, exprs))

    def _where_nonzero(self, gaps: isl.Set, exprs: Sequence[Expr]) -> isl.Set:
        """The points of *gaps* where no expression of *exprs* is zero."""
        params = [gaps.get_dim_name(_DT.param, k) for k in range(gaps.dim(_DT.param))]
        b = Builder(self.names, [], params)
        out = gaps
        for e in exprs:
            try:
                nonzero = b.condition(arith.not_equal(e, 0))
            except NonAffineError:
                continue
            out, nonzero = isl.align_two(out, nonzero)
            out = out & nonzero
        return out

    def _context(self, guards: Sequence[Expr]) -> isl.Set | None:
        params = self.param_names
        if not guards or not params:
            return None
        b = Builder(self.names, [], params)
        ctx = b.universe()
        for g in guards:
            try:
                ctx = ctx & b.condition(g)
            except NonAffineError:
                continue
        return ctx.params()

    def __repr__(self) -> str:
        return f"IslSet({self.isl})"


def one_to_one(domain: Sequence[Expr], loops: Sequence[Var], values: Sequence[Expr]) -> bool:
    """Whether the tuple *values* differs at every two points of the loops *loops* where the
    conditions *domain* hold, for every value of the other variables (False where not affine)."""
    names = IslNames()
    outs = [names.fresh(f"value{k}") for k in range(len(values))]
    loop_names = [names[v] for v in loops]
    params = [names[v] for v in free_vars([*domain, *values]) if v not in set(loops)]
    try:
        b = Builder(names, [*loop_names, *outs], params)
        s = b.where(domain, list(zip(outs, values))).isl
    except NonAffineError:
        return False
    relation = isl.Map.from_range(s).move_dims(_DT.in_, 0, _DT.out, 0, len(loop_names))
    return bool(relation.reverse().is_single_valued())
