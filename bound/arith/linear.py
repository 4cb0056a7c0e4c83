"""Integer expressions as linear sums ``sum(coeff * atom) + const``.

An atom is any sub-expression that is not a sum, a constant or a product with a constant:
a variable, ``x // 4``, ``x % 4``, ``min(a, b)``, a product of two variables ...
:meth:`Linear.to_expr` writes a sum back the way TVM's canonical simplifier prints it:
positive terms by descending coefficient (ties in order of first appearance), then a positive
constant, then the subtracted terms, then a negative constant: ``((x*16) + y) - 1``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from bound.arith.const_bound import Bound, ConstBounds
from schedule import arith
from schedule.ir.expr import Add, Expr, IntImm, Mul, Sub


@dataclass
class Linear:
    """A linear sum over atoms; *terms* keeps insertion order and never holds zero."""

    dtype: str
    terms: dict[Expr, int] = field(default_factory=dict)
    const: int = 0

    @staticmethod
    def of(e: Expr) -> Linear:
        """Decompose *e* through ``+``, ``-`` and multiplication by constants."""
        lin = Linear(e.dtype)
        lin._accumulate(e, 1)
        return lin

    def _accumulate(self, e: Expr, scale: int) -> None:
        stack = [(e, scale)]
        while stack:
            x, k = stack.pop()
            if isinstance(x, IntImm):
                self.const += k * x.value
            elif isinstance(x, Add):
                stack.extend(((x.b, k), (x.a, k)))
            elif isinstance(x, Sub):
                stack.extend(((x.b, -k), (x.a, k)))
            elif isinstance(x, Mul) and isinstance(x.b, IntImm):
                stack.append((x.a, k * x.b.value))
            elif isinstance(x, Mul) and isinstance(x.a, IntImm):
                stack.append((x.b, k * x.a.value))
            else:
                self.add_term(x, k)

    def add_term(self, atom: Expr, coeff: int) -> None:
        if coeff == 0:
            return
        new = self.terms.get(atom, 0) + coeff
        if new == 0:
            del self.terms[atom]
        else:
            self.terms[atom] = new

    def add_scaled(self, other: Linear, scale: int = 1) -> None:
        """Add ``scale * other`` to this sum in place."""
        self.const += scale * other.const
        for atom, k in other.terms.items():
            self.add_term(atom, scale * k)

    def plus(self, other: Linear, scale: int = 1) -> Linear:
        out = Linear(self.dtype, dict(self.terms), self.const + scale * other.const)
        for atom, k in other.terms.items():
            out.add_term(atom, scale * k)
        return out

    def scaled(self, k: int) -> Linear:
        if k == 0:
            return Linear(self.dtype)
        return Linear(self.dtype, {a: c * k for a, c in self.terms.items()}, self.const * k)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def coeff_gcd(self) -> int:
        """gcd of the coefficients (0 when there are no terms)."""
        g = 0
        for k in self.terms.values():
            g = math.gcd(g, k)
        return g

    def divisor(self) -> int:
        """The largest known divisor of the whole sum (its terms and constant)."""
        return math.gcd(self.coeff_gcd(), self.const)

    def bound(self, cb: ConstBounds) -> Bound:
        lo: int | None = self.const
        hi: int | None = self.const
        for atom, k in self.terms.items():
            alo, ahi = cb(atom)
            if k < 0:
                alo, ahi = ahi, alo
            lo = None if lo is None or alo is None else lo + k * alo
            hi = None if hi is None or ahi is None else hi + k * ahi
        return lo, hi

    def to_expr(self) -> Expr:
        """The sum in TVM's canonical order (see the module docstring)."""
        order = sorted(enumerate(self.terms.items()), key=lambda t: (-t[1][1], t[0]))
        result: Expr = arith.const(0, self.dtype)
        for _, (atom, k) in order:
            if k > 0:
                result = arith.add(result, atom if k == 1 else arith.mul(atom, arith.const(k, self.dtype)))
        if self.const > 0:
            result = arith.add(result, arith.const(self.const, self.dtype))
        for _, (atom, k) in order:
            if k < 0:
                result = arith.sub(result, atom if k == -1 else arith.mul(atom, arith.const(-k, self.dtype)))
        if self.const < 0:
            result = arith.sub(result, arith.const(-self.const, self.dtype))
        return result
