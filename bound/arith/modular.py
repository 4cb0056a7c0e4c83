"""Modular sets of integer expressions: every value an expression takes is ``coeff * k + base``
for some integer k (TVM's ``ModularSet``). ``coeff == 0`` is the constant ``base``; ``(1, 0)``
says nothing. Variables get theirs from bindings and from constraints such as ``x % 4 == 1``,
which combine by the Chinese remainder theorem."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from schedule.ir.expr import (
    Add,
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
    Select,
    Sub,
    Var,
)
from schedule.ir.functor import ExprFunctor


@dataclass(frozen=True)
class ModularSet:
    """``{coeff * k + base}``, with ``0 <= base < coeff`` unless ``coeff`` is 0 (a constant)."""

    coeff: int
    base: int

    @staticmethod
    def of(coeff: int, base: int) -> ModularSet:
        coeff = abs(coeff)
        return ModularSet(coeff, base % coeff if coeff else base)

    @property
    def is_const(self) -> bool:
        return self.coeff == 0

    def union(self, other: ModularSet) -> ModularSet:
        """The tightest set holding both."""
        return ModularSet.of(math.gcd(self.coeff, other.coeff, self.base - other.base), self.base)

    def intersect(self, other: ModularSet) -> ModularSet | None:
        """The values in both (Chinese remainder theorem); None when there are none."""
        if self.is_const or other.is_const:
            const, rest = (self, other) if self.is_const else (other, self)
            if rest.is_const:
                return const if rest.base == const.base else None
            return const if (const.base - rest.base) % rest.coeff == 0 else None
        g = math.gcd(self.coeff, other.coeff)
        if (other.base - self.base) % g:
            return None
        # self.base + self.coeff * t == other.base (mod other.coeff)
        step = other.coeff // g
        t = ((other.base - self.base) // g * pow(self.coeff // g, -1, step)) % step if step > 1 else 0
        lcm = self.coeff // g * other.coeff
        return ModularSet.of(lcm, self.base + self.coeff * t)


EVERYTHING = ModularSet(1, 0)


class _Modular(ExprFunctor[ModularSet]):
    def __init__(self, known: Mapping[Var, ModularSet], nonneg: Callable[[Expr], bool]) -> None:
        self._known = known
        self._nonneg = nonneg

    def visit_int_imm(self, e: IntImm) -> ModularSet:
        return ModularSet(0, e.value)

    def visit_var(self, e: Var) -> ModularSet:
        return self._known.get(e, EVERYTHING)

    def visit_let(self, e: Expr) -> ModularSet:
        """``let v = value in body``: v has the value's set while the body is read."""
        known = dict(self._known)
        known[e.var] = self(e.value)  # type: ignore[attr-defined]
        return _Modular(known, self._nonneg)(e.body)  # type: ignore[attr-defined]

    def visit_default(self, e: Expr) -> ModularSet:
        return EVERYTHING

    def visit_add(self, e: Add) -> ModularSet:
        a, b = self(e.a), self(e.b)
        return ModularSet.of(math.gcd(a.coeff, b.coeff), a.base + b.base)

    def visit_sub(self, e: Sub) -> ModularSet:
        a, b = self(e.a), self(e.b)
        return ModularSet.of(math.gcd(a.coeff, b.coeff), a.base - b.base)

    def visit_mul(self, e: Mul) -> ModularSet:
        return self._mul(self(e.a), self(e.b))

    @staticmethod
    def _mul(a: ModularSet, b: ModularSet) -> ModularSet:
        # (ca k + ba)(cb l + bb) = ca cb kl + ca bb k + ba cb l + ba bb
        return ModularSet.of(math.gcd(a.coeff * b.coeff, a.coeff * b.base, a.base * b.coeff), a.base * b.base)

    def _div(self, a_expr: Expr, c: int, round_down: bool) -> ModularSet:
        a = self(a_expr)
        if c == 0 or a.coeff % c:
            return EVERYTHING
        if a.base == 0:
            return ModularSet.of(a.coeff // c, 0)
        # A positive remainder divides the same way in every rounding only for a non-negative
        # dividend; floor division rounds down whatever its sign.
        if a.base > 0 and c > 0 and (round_down or self._nonneg(a_expr)):
            return ModularSet.of(a.coeff // c, a.base // c)
        return EVERYTHING

    def _mod(self, a_expr: Expr, c: int, floor: bool) -> ModularSet:
        a = self(a_expr)
        if c == 0:
            return EVERYTHING
        g = math.gcd(a.coeff, c)
        # x % c keeps x's residue modulo gcd(coeff, c); for truncated mod only when x >= 0
        # (or the residue is 0, which both signs keep).
        if floor or a.base % g == 0 or (a.base > 0 and self._nonneg(a_expr)):
            return ModularSet.of(g, a.base % g if g else a.base)
        return EVERYTHING

    def visit_floor_div(self, e: FloorDiv) -> ModularSet:
        c = self(e.b)
        return self._div(e.a, c.base, True) if c.is_const else EVERYTHING

    def visit_div(self, e: Div) -> ModularSet:
        c = self(e.b)
        return self._div(e.a, c.base, False) if c.is_const else EVERYTHING

    def visit_floor_mod(self, e: FloorMod) -> ModularSet:
        c = self(e.b)
        return self._mod(e.a, c.base, True) if c.is_const else EVERYTHING

    def visit_mod(self, e: Mod) -> ModularSet:
        c = self(e.b)
        return self._mod(e.a, c.base, False) if c.is_const else EVERYTHING

    def visit_min(self, e: Min) -> ModularSet:
        return self(e.a).union(self(e.b))

    def visit_max(self, e: Max) -> ModularSet:
        return self(e.a).union(self(e.b))

    def visit_select(self, e: Select) -> ModularSet:
        return self(e.true_value).union(self(e.false_value))

    def visit_cast(self, e: Cast) -> ModularSet:
        return self(e.value)

    def visit_call(self, e: Call) -> ModularSet:
        if e.name in ("shift_left", "shift_right") and len(e.args) == 2:
            shift = self(e.args[1])
            if shift.is_const and 0 <= shift.base < 63:
                if e.name == "shift_left":
                    return self._mul(self(e.args[0]), ModularSet(0, 1 << shift.base))
                return self._div(e.args[0], 1 << shift.base, True)
        if e.name == "bitwise_and" and len(e.args) == 2:
            mask = self(e.args[1])
            if mask.is_const and mask.base > 0 and mask.base & (mask.base + 1) == 0:  # x & (2^p - 1) is x mod 2^p
                return self._mod(e.args[0], mask.base + 1, True)
        return EVERYTHING


def modular_set(e: Expr, known: Mapping[Var, ModularSet] | None = None,
                nonneg: Callable[[Expr], bool] | None = None) -> ModularSet:
    """The modular set of *e*, given those of some variables (*known*) and a test of whether
    an expression is never negative (*nonneg*, for truncated division)."""
    return _Modular(known or {}, nonneg or (lambda _: False))(e)
