"""Sets of buffer positions as isl sets, for dataflow analyses over buffer contents: one set
dimension, the position along a flat buffer, and the variables in scope (loop variables,
parameters) as isl parameters.

A region that depends on a loop variable (``{a : a = i}``) is a family of regions, one per
iteration; :meth:`Regions.exists` and :meth:`Regions.forall` quantify the variable over the
loop's range. Anything isl cannot represent (a position read from memory, a product of two
variables) is ``None``: the analyses built on this treat it as unknown.
"""

from __future__ import annotations

import islpy as isl

from bound.errors import NonAffineError
from bound.isl.from_expr import _ToPwAff, _ToSet
from bound.isl.names import IslNames, make_space
from schedule.ir import arith
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import free_vars

_DT = isl.dim_type

#: A region: an isl set over ``[axis]`` with the variables in scope as parameters.
Region = isl.Set

#: The position along a buffer in every region.
AXIS = Var("axis", "int32")


class Regions:
    """Conversions to isl sets over ``[axis]``, all sharing one naming of the variables."""

    def __init__(self) -> None:
        self.names = IslNames()
        self._fresh = 0
        self.axis = self.names[AXIS]
        self._universe = isl.Set.universe(make_space([self.axis], []))

    def universe(self) -> isl.Set:
        return self._universe

    def empty(self) -> isl.Set:
        return isl.Set.empty(self._universe.get_space())

    def _space(self, exprs: list[Expr]) -> isl.Space:
        params = [self.names[v] for v in free_vars(exprs) if v is not AXIS]
        return make_space([self.axis], params)

    def condition(self, cond: Expr) -> isl.Set | None:
        """Where *cond* holds (it may use :data:`AXIS`), or ``None`` when it is not affine."""
        try:
            return _ToSet(_ToPwAff(self._space([cond]), self.names))(cond).coalesce()
        except (NonAffineError, TypeError, AttributeError):
            return None

    def position(self, index: Expr, lanes: tuple[Var, int] | None = None) -> isl.Set | None:
        """``{a : a = index}``; with *lanes* ``(lane, n)``, the positions of lanes ``0..n-1``."""
        at = self.condition(arith.eq_node(AXIS, index))
        if at is None or lanes is None:
            return at
        lane, n = lanes
        in_range = self.condition(arith.logical_and(arith.ge(lane, 0), arith.lt(lane, n)))
        return None if in_range is None else self.exists(at.intersect(in_range), lane)

    def _quantify(self, s: isl.Set, var: Var, exists: bool) -> isl.Set:
        pos = s.find_dim_by_name(_DT.param, self.names[var])
        if pos < 0:
            return s
        if not exists:
            s = s.complement()
        s = s.move_dims(_DT.set, 1, _DT.param, pos, 1).project_out(_DT.set, 1, 1)
        return (s if exists else s.complement()).coalesce()

    def exists(self, s: isl.Set, var: Var, where: isl.Set | None = None) -> isl.Set:
        """The positions in *s* for some value of *var* (in *where*, a set on *var*)."""
        return self._quantify(s if where is None else s.intersect(where), var, True)

    def forall(self, s: isl.Set, var: Var, where: isl.Set | None = None) -> isl.Set:
        """The positions in *s* for every value of *var* (in *where*)."""
        return self._quantify(s if where is None else s.union(where.complement()), var, False)

    def over(self, region: isl.Set | None, var: Var, lo: Expr, hi: Expr) -> isl.Set | None:
        """The positions of *region* (a family over *var*; None: every position) for some value
        of *var* in ``[lo, hi)``; None when that range is not affine."""
        self._fresh += 1
        u = Var(f"u_{self._fresh}", var.dtype)
        where = self.condition(arith.logical_and(arith.ge(u, lo), arith.lt(u, hi)))
        if where is None:
            return None
        return self.exists(self.universe() if region is None else self.rename(region, var, u), u, where)

    def mentions(self, s: isl.Set, var: Var) -> bool:
        return s.find_dim_by_name(_DT.param, self.names[var]) >= 0

    def rename(self, s: isl.Set, var: Var, to: Var) -> isl.Set:
        """*s* with *var* called *to* (a family over one iteration made one over another)."""
        pos = s.find_dim_by_name(_DT.param, self.names[var])
        return s if pos < 0 else s.set_dim_name(_DT.param, pos, self.names[to])
