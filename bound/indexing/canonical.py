"""XLA HEAD's range-free canonical form of an expression (``SymbolicExpr::Canonicalize``).

Sums are flattened, like terms combined and sorted in XLA's expression order (sums, products,
mods, floordivs, ceildivs, then dims, symbols and the constant last), products distributed
over sums, and divisions and mods by constants reduced where that holds for every integer
value of the variables. Nodes are built as they are, without MLIR's construction-time
reordering, so that the result prints as XLA HEAD prints it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from bound.indexing.affine_expr import AffineExpr, Binary, Const, Kind, evaluate, largest_known_divisor


def compare_exprs(a: AffineExpr, b: AffineExpr) -> int:
    """XLA's expression order: by kind (constants last), then operands, positions or values."""
    if a.kind != b.kind:
        return -1 if a.kind < b.kind else 1
    if isinstance(a, Binary):
        assert isinstance(b, Binary)
        return compare_exprs(a.lhs, b.lhs) or compare_exprs(a.rhs, b.rhs)
    va = a.value if isinstance(a, Const) else a.position  # type: ignore[attr-defined]
    vb = b.value if isinstance(b, Const) else b.position  # type: ignore[attr-defined]
    return -1 if va < vb else (0 if va == vb else 1)


SORT_KEY = functools.cmp_to_key(compare_exprs)


def canonicalize(e: AffineExpr) -> AffineExpr:
    """*e* in XLA HEAD's canonical form; equal to *e* at every point."""
    if not isinstance(e, Binary):
        return e
    lhs, rhs = canonicalize(e.lhs), canonicalize(e.rhs)
    if isinstance(lhs, Const) and isinstance(rhs, Const):
        if rhs.value == 0 and e.op in (Kind.FLOORDIV, Kind.CEILDIV, Kind.MOD):
            return Binary(e.op, lhs, rhs)  # kept as written: no value to fold to
        return Const(evaluate(Binary(e.op, lhs, rhs), (), ()))
    if e.op in (Kind.ADD, Kind.MUL, Kind.MIN, Kind.MAX) and compare_exprs(rhs, lhs) < 0:
        lhs, rhs = rhs, lhs
    if e.op == Kind.ADD:
        return _add(lhs, rhs)
    if e.op == Kind.MUL:
        return _mul(lhs, rhs)
    if e.op in (Kind.MIN, Kind.MAX):
        # min(X, X + k) is X for k >= 0 (max: X + k); any other pair stays
        diff = canonicalize(Binary(Kind.ADD, lhs, Binary(Kind.MUL, rhs, Const(-1))))
        if isinstance(diff, Const):
            return lhs if (diff.value <= 0) == (e.op == Kind.MIN) else rhs
        return Binary(e.op, lhs, rhs)
    d = rhs.value if isinstance(rhs, Const) else None
    if lhs == Const(0) and d != 0:
        return lhs
    if e.op == Kind.MOD and lhs == rhs:
        return Const(0)
    if d is None or d == 0:
        return Binary(e.op, lhs, rhs)
    if e.op == Kind.MOD:
        return _mod(lhs, d)
    if e.op == Kind.FLOORDIV:
        return _floordiv(lhs, d)
    return _ceildiv(lhs, d)


# -- sums and products -------------------------------------------------------------------------

def terms_of(e: AffineExpr) -> list[tuple[AffineExpr, int]]:
    """The summands of a nested sum as (base, coefficient), constants with base ``Const(1)``."""
    out: list[tuple[AffineExpr, int]] = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Binary) and x.op == Kind.ADD:
            stack.extend((x.rhs, x.lhs))
            continue
        k = 1
        while isinstance(x, Binary) and x.op == Kind.MUL and isinstance(x.rhs, Const):
            k *= x.rhs.value
            x = x.lhs
        if isinstance(x, Const):
            out.append((Const(1), k * x.value))
        else:
            out.append((x, k))
    return out


def scaled(base: AffineExpr, k: int) -> AffineExpr:
    """``base * k`` with the neutral and absorbing factors folded."""
    if k == 0:
        return Const(0)
    if k == 1:
        return base
    if isinstance(base, Const):
        return Const(base.value * k)
    return Binary(Kind.MUL, base, Const(k))


def sum_of(terms: list[tuple[AffineExpr, int]]) -> AffineExpr:
    """The canonical sum of (base, coefficient) terms: like bases combined, sorted, constant last."""
    coefficients: dict[AffineExpr, int] = {}
    constant = 0
    pending = list(terms)
    while pending:
        base, k = pending.pop()
        if isinstance(base, Binary) and base.op == Kind.ADD:
            pending.extend((b, kk * k) for b, kk in terms_of(base))
            continue
        if isinstance(base, Const):
            constant += base.value * k
        else:
            coefficients[base] = coefficients.get(base, 0) + k
    changed = _fold_div_and_mod(coefficients)
    parts = [_mul(base, Const(k)) if k != 1 else base for base, k in coefficients.items() if k != 0]
    if constant:
        parts.append(Const(constant))
    if not parts:
        return Const(0)
    parts.sort(key=SORT_KEY)
    out = parts[0]
    for p in parts[1:]:
        out = Binary(Kind.ADD, out, p)
    return canonicalize(out) if changed else out


def _fold_div_and_mod(coefficients: dict[AffineExpr, int]) -> bool:
    """``(X floordiv C) * (C * Y) + (X mod C) * Y`` to ``X * Y`` (C > 0), in place."""
    changed = False
    for base in list(coefficients):
        k = coefficients.get(base, 0)
        if not (k and isinstance(base, Binary) and base.op == Kind.FLOORDIV and isinstance(base.rhs, Const)):
            continue
        c = base.rhs.value
        if c <= 0 or k % c:
            continue
        remainder = canonicalize(Binary(Kind.MOD, base.lhs, base.rhs))
        if coefficients.get(remainder) == k // c:
            coefficients[base] = coefficients[remainder] = 0
            for b, kk in terms_of(canonicalize(Binary(Kind.MUL, base.lhs, Const(k // c)))):
                coefficients[b] = coefficients.get(b, 0) + kk
            changed = True
    return changed


def _add(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    return sum_of(terms_of(lhs) + terms_of(rhs))


def _mul(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    if isinstance(rhs, Const):
        k = rhs.value
        if k == 0:
            return Const(0)
        if k == 1:
            return lhs
        if isinstance(lhs, Binary) and lhs.op == Kind.MUL and isinstance(lhs.rhs, Const):
            return _mul(lhs.lhs, Const(lhs.rhs.value * k))
    for a, b in ((lhs, rhs), (rhs, lhs)):
        if isinstance(a, Binary) and a.op == Kind.ADD:
            return sum_of([t for s, k in terms_of(a) for t in terms_of(_mul(scaled(s, k), b))])
    return Binary(Kind.MUL, lhs, rhs)


# -- divisions and mods by a constant ---------------------------------------------------------------

def _negated(e: AffineExpr) -> AffineExpr:
    return _mul(e, Const(-1))


def _gcd_reduced(lhs: AffineExpr, d: int) -> tuple[AffineExpr, int, int] | None:
    """``(A * c) op d`` as ``(A * c/g, d/g, g)`` for the gcd g > 1 of c and d."""
    if isinstance(lhs, Binary) and lhs.op == Kind.MUL and isinstance(lhs.rhs, Const):
        c = lhs.rhs.value
        g = math.gcd(c, d)
        if g > 1:
            return _mul(lhs.lhs, Const(c // g)), d // g, g
    return None


def _unit_or_common_factor(lhs: AffineExpr, d: int,
                           again: Callable[[AffineExpr, int], AffineExpr]) -> AffineExpr | None:
    """A division of *lhs* by ``d = ±1``, or by a *d* sharing a factor with *lhs*'s multiplier
    (divided again by *again*, without it); None for any other."""
    if d == 1:
        return lhs
    if d == -1:
        return _negated(lhs)
    reduced = _gcd_reduced(lhs, d)
    return again(reduced[0], reduced[1]) if reduced is not None else None


def _floordiv(lhs: AffineExpr, d: int) -> AffineExpr:
    if isinstance(lhs, Const):
        return Const(lhs.value // d)
    if (simple := _unit_or_common_factor(lhs, d, _floordiv)) is not None:
        return simple
    terms = terms_of(lhs)
    if len(terms) < 2:
        return Binary(Kind.FLOORDIV, lhs, Const(d))
    # Summands that are multiples of d leave the division; so does the constant, as its quotient,
    # when its remainder is below the gcd of the rest and d (then the remainder cannot carry).
    extracted = [(b, k // d) for b, k in terms if not isinstance(b, Const) and k % d == 0]
    rest = [(b, k) for b, k in terms if isinstance(b, Const) or k % d]
    constant = sum(k for b, k in rest if isinstance(b, Const))
    rest = [(b, k) for b, k in rest if not isinstance(b, Const)]
    q, r = divmod(constant, d)
    if rest and abs(r) < math.gcd(largest_known_divisor(sum_of(rest)), d):
        r = 0
    if r != 0:  # a remainder that can carry stays inside with its quotient: (d0 - 1) floordiv 2
        q, r = 0, constant
    if not extracted and r == constant:
        return Binary(Kind.FLOORDIV, lhs, Const(d))
    remaining = sum_of([*rest, (Const(1), r)])
    return sum_of([*extracted, (Const(1), q), *terms_of(_floordiv(remaining, d))])


def _ceildiv(lhs: AffineExpr, d: int) -> AffineExpr:
    if (simple := _unit_or_common_factor(lhs, d, _ceildiv)) is not None:
        return simple
    if d > 0:
        return _floordiv(sum_of([*terms_of(lhs), (Const(1), d - 1)]), d)
    return _negated(_floordiv(lhs, -d))


def _mod(lhs: AffineExpr, d: int) -> AffineExpr:
    if d in (1, -1) or largest_known_divisor(lhs) % abs(d) == 0:
        return Const(0)
    if d < 0:  # XLA's mod by a negative constant is not floor-based; nothing more is rewritten
        return Binary(Kind.MOD, lhs, Const(d))
    reduced = _gcd_reduced(lhs, d)
    if reduced is not None:
        return _mul(_mod(reduced[0], reduced[1]), Const(reduced[2]))
    if isinstance(lhs, Binary) and lhs.op == Kind.MOD and isinstance(lhs.rhs, Const) and lhs.rhs.value % d == 0:
        return _mod(lhs.lhs, d)
    terms = terms_of(lhs)
    kept = [(b, k) for b, k in terms if k % d]  # multiples of d, the constant too, drop out
    rest = sum_of(kept)
    if rest == lhs:
        return Binary(Kind.MOD, lhs, Const(d))
    return Const(rest.value % d) if isinstance(rest, Const) else _mod(rest, d)
