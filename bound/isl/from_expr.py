"""Quasi-affine expressions to isl piecewise affine functions and sets.

Anything that is not quasi-affine raises :class:`~bound.errors.NonAffineError`.
"""

from __future__ import annotations

from typing import Any

import islpy as isl

from bound.errors import NonAffineError
from bound.isl.names import IslNames
from schedule.ir.dtype import is_int
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Call,
    Cast,
    Div,
    Expr,
    FloorDiv,
    FloorMod,
    IntImm,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    Select,
    Sub,
    Var,
)
from schedule.ir.functor import ExprFunctor

_DT = isl.dim_type


class _ToPwAff(ExprFunctor[isl.PwAff]):
    """Quasi-affine integer expression -> PwAff over *space* (variables by name)."""

    def __init__(self, space: isl.Space, names: IslNames) -> None:
        self._vars = isl.affs_from_space(space)
        self._names = names
        self._zero = self._vars[0]

    def const(self, v: int) -> isl.PwAff:
        # islpy's operator form converts the number through a slow generic path.
        return self._zero.add_constant_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, v))

    def visit_int_imm(self, e: IntImm) -> isl.PwAff:
        return self.const(e.value)

    def visit_var(self, e: Var) -> isl.PwAff:
        name = self._names[e]
        if name not in self._vars:
            raise NonAffineError(f"variable {e.name} is not in the isl space")
        return self._vars[name]

    def visit_add(self, e: Add) -> isl.PwAff: return self(e.a) + self(e.b)
    def visit_sub(self, e: Sub) -> isl.PwAff: return self(e.a) - self(e.b)

    def visit_mul(self, e: Mul) -> isl.PwAff:
        for k, x in ((e.a, e.b), (e.b, e.a)):
            if isinstance(k, IntImm):
                return self(x).scale_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, k.value))
        raise NonAffineError(f"product of two non-constants: {e}")

    def _divisor(self, e: Any) -> int:
        if not (isinstance(e.b, IntImm) and e.b.value > 0):
            raise NonAffineError(f"division by a non-constant or non-positive value: {e}")
        return e.b.value

    def visit_floor_div(self, e: FloorDiv) -> isl.PwAff:
        return self(e.a).scale_down_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, self._divisor(e))).floor()

    def visit_floor_mod(self, e: FloorMod) -> isl.PwAff:
        return self(e.a).mod_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, self._divisor(e)))

    def visit_div(self, e: Div) -> isl.PwAff:
        return self(e.a).tdiv_q(self.const(self._divisor(e)))

    def visit_mod(self, e: Mod) -> isl.PwAff:
        return self(e.a).tdiv_r(self.const(self._divisor(e)))

    def visit_min(self, e: Min) -> isl.PwAff: return self(e.a).min(self(e.b))
    def visit_max(self, e: Max) -> isl.PwAff: return self(e.a).max(self(e.b))

    def visit_select(self, e: Select) -> isl.PwAff:
        cond = _ToSet(self)(e.condition)
        return self(e.true_value).intersect_domain(cond).union_add(
            self(e.false_value).intersect_domain(cond.complement()))

    def visit_cast(self, e: Cast) -> isl.PwAff:
        if is_int(e.dtype) and is_int(e.value.dtype):
            return self(e.value)
        raise NonAffineError(f"cast to {e.dtype} is not affine: {e}")

    def visit_default(self, e: Expr) -> isl.PwAff:
        raise NonAffineError(f"not quasi-affine: {e}")


class _ToSet(ExprFunctor[isl.Set]):
    """Affine condition -> the set where it holds."""

    def __init__(self, aff: _ToPwAff) -> None:
        self._aff = aff

    def visit_int_imm(self, e: IntImm) -> isl.Set:
        universe = self._aff._zero.domain()
        return universe if e.value else universe.subtract(universe)

    def visit_default(self, e: Expr) -> isl.Set:
        pairs = {LT: "lt_set", LE: "le_set", GT: "gt_set", GE: "ge_set", EQ: "eq_set", NE: "ne_set"}
        method = pairs.get(type(e))
        if method is None:
            raise NonAffineError(f"not an affine condition: {e}")
        return getattr(self._aff(e.a), method)(self._aff(e.b))  # type: ignore[attr-defined]

    def visit_and(self, e: And) -> isl.Set: return self(e.a).intersect(self(e.b))
    def visit_or(self, e: Or) -> isl.Set: return self(e.a).union(self(e.b))
    def visit_not(self, e: Not) -> isl.Set: return self(e.a).complement()

    def visit_call(self, e: Call) -> isl.Set:
        if e.name == "likely":
            return self(e.args[0])
        raise NonAffineError(f"not an affine condition: {e}")
