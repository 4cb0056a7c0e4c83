"""Affine expressions as MLIR builds them: dims, symbols, constants and + * floordiv ceildiv mod
(and XLA's ``min`` and ``max``).

Every operator canonicalises locally at construction, exactly as MLIR's ``AffineExpr``
operators do (constants to the right, ``(x + 2) + 3 -> x + 5``, ``x*c1 + x*c2 -> x*(c1+c2)``,
``x - (x floordiv c)*c -> x mod c`` ...), because the indexing-map texts that XLA prints depend
on these rules. Nodes are immutable and compare structurally, as MLIR's uniqued expressions do.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass


class Kind(enum.IntEnum):
    """Expression kinds, in the order XLA's simplifier sorts sums by (``CompareExprs``)."""

    ADD = 0
    MUL = 1
    MOD = 2
    FLOORDIV = 3
    CEILDIV = 4
    MAX = 5
    MIN = 6
    DIM = 7
    SYMBOL = 8
    CONSTANT = 9


class AffineExpr:
    """Base of the expression nodes; arithmetic operators build canonical expressions."""

    kind: Kind

    def __add__(self, other: ExprLike) -> AffineExpr:
        return add(self, lift(other))

    def __radd__(self, other: ExprLike) -> AffineExpr:
        return add(lift(other), self)

    def __mul__(self, other: ExprLike) -> AffineExpr:
        return mul(self, lift(other))

    def __rmul__(self, other: ExprLike) -> AffineExpr:
        return mul(lift(other), self)

    def __neg__(self) -> AffineExpr:
        return mul(self, Const(-1))

    def __sub__(self, other: ExprLike) -> AffineExpr:
        return add(self, -lift(other))

    def __rsub__(self, other: ExprLike) -> AffineExpr:
        return add(lift(other), -self)

    def floordiv(self, other: ExprLike) -> AffineExpr:
        return floordiv(self, lift(other))

    def ceildiv(self, other: ExprLike) -> AffineExpr:
        return ceildiv(self, lift(other))

    def mod(self, other: ExprLike) -> AffineExpr:
        return mod(self, lift(other))

    def __str__(self) -> str:
        return print_expr(self, lambda k: f"d{k}", lambda k: f"s{k}")

    def __repr__(self) -> str:
        return f"AffineExpr({self})"


@dataclass(frozen=True, repr=False)
class Const(AffineExpr):
    value: int
    kind = Kind.CONSTANT


@dataclass(frozen=True, repr=False)
class Dim(AffineExpr):
    position: int
    kind = Kind.DIM


@dataclass(frozen=True, repr=False)
class Symbol(AffineExpr):
    position: int
    kind = Kind.SYMBOL


@dataclass(frozen=True, repr=False)
class Binary(AffineExpr):
    """``lhs <op> rhs`` for the binary kinds (ADD, MUL, MOD, FLOORDIV, CEILDIV, MAX, MIN)."""

    op: Kind
    lhs: AffineExpr
    rhs: AffineExpr

    @property
    def kind(self) -> Kind:  # type: ignore[override]
        return self.op


ExprLike = AffineExpr | int


def lift(x: ExprLike) -> AffineExpr:
    if isinstance(x, AffineExpr):
        return x
    if isinstance(x, int) and not isinstance(x, bool):
        return Const(x)
    raise TypeError(f"affine expressions combine with integers, not {type(x).__name__}")


def const_value(e: AffineExpr) -> int | None:
    return e.value if isinstance(e, Const) else None


def is_symbolic_or_constant(e: AffineExpr) -> bool:
    """No dimension occurs in *e*."""
    if isinstance(e, Dim):
        return False
    if isinstance(e, Binary):
        return is_symbolic_or_constant(e.lhs) and is_symbolic_or_constant(e.rhs)
    return True


def largest_known_divisor(e: AffineExpr) -> int:
    """MLIR's largest known divisor of *e*'s value."""
    if isinstance(e, Const):
        return abs(e.value)
    if isinstance(e, (Dim, Symbol)):
        return 1
    assert isinstance(e, Binary)
    if e.op in (Kind.FLOORDIV, Kind.CEILDIV):
        c = const_value(e.rhs)
        if c:
            lhs = largest_known_divisor(e.lhs)
            if lhs % c == 0:
                return abs(lhs // c)
        return 1
    if e.op == Kind.MUL:
        return largest_known_divisor(e.lhs) * largest_known_divisor(e.rhs)
    return math.gcd(largest_known_divisor(e.lhs), largest_known_divisor(e.rhs))


# -- construction with MLIR's local simplifications ---------------------------------------------

def add(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    lc, rc = const_value(lhs), const_value(rhs)
    if lc is not None and rc is not None:
        return Const(lc + rc)
    if lc is not None or (is_symbolic_or_constant(lhs) and not is_symbolic_or_constant(rhs)):
        return add(rhs, lhs)
    if rc == 0:
        return lhs
    lbin = lhs if isinstance(lhs, Binary) else None
    if lbin is not None and rc is not None and lbin.op == Kind.ADD and isinstance(lbin.rhs, Const):
        return add(lbin.lhs, Const(lbin.rhs.value + rc))
    first, k1 = _scaled(lhs)
    second, k2 = _scaled(rhs)
    if first == second:
        return mul(first, Const(k1 + k2))
    if lbin is not None and lbin.op == Kind.ADD and isinstance(lbin.rhs, Const):
        return add(add(lbin.lhs, rhs), lbin.rhs)
    folded = _mod_from_difference(lhs, rhs)
    if folded is not None:
        return folded
    return Binary(Kind.ADD, lhs, rhs)


def _scaled(e: AffineExpr) -> tuple[AffineExpr, int]:
    if isinstance(e, Binary) and e.op == Kind.MUL and isinstance(e.rhs, Const):
        return e.lhs, e.rhs.value
    return e, 1


def _mod_from_difference(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr | None:
    """``x + ((x floordiv q) * q) * -1`` and ``x + (x floordiv c) * -c`` as ``x mod q``."""
    if not (isinstance(rhs, Binary) and rhs.op == Kind.MUL):
        return None
    lrhs, rrhs = rhs.lhs, rhs.rhs
    if (isinstance(rrhs, Const) and rrhs.value == -1 and isinstance(lrhs, Binary)
            and lrhs.op == Kind.MUL):
        inner, q = lrhs.lhs, lrhs.rhs
        if isinstance(inner, Binary) and inner.op == Kind.FLOORDIV and inner.rhs == q and inner.lhs == lhs:
            return mod(lhs, q)
        return None
    if isinstance(lrhs, Binary) and lrhs.op == Kind.FLOORDIV and isinstance(lrhs.rhs, Const):
        c = lrhs.rhs.value
        if c > 0 and lrhs.lhs == lhs and isinstance(rrhs, Const) and rrhs.value == -c:
            return mod(lhs, lrhs.rhs)
    return None


def mul(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    lc, rc = const_value(lhs), const_value(rhs)
    if lc is not None and rc is not None:
        return Const(lc * rc)
    if not is_symbolic_or_constant(lhs) and not is_symbolic_or_constant(rhs):
        return Binary(Kind.MUL, lhs, rhs)  # semi-affine: kept as written
    if not is_symbolic_or_constant(rhs) or lc is not None:
        return mul(rhs, lhs)
    if rc == 1:
        return lhs
    if rc == 0:
        return rhs
    if isinstance(lhs, Binary) and lhs.op == Kind.MUL and isinstance(lhs.rhs, Const):
        if rc is not None:
            return mul(lhs.lhs, Const(lhs.rhs.value * rc))
        return mul(mul(lhs.lhs, rhs), lhs.rhs)
    return Binary(Kind.MUL, lhs, rhs)


def floordiv(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    lc, rc = const_value(lhs), const_value(rhs)
    if rc is None or rc < 1:
        return Binary(Kind.FLOORDIV, lhs, rhs)
    if lc is not None:
        return Const(lc // rc)
    if rc == 1:
        return lhs
    if isinstance(lhs, Binary) and lhs.op == Kind.MUL and isinstance(lhs.rhs, Const) and lhs.rhs.value % rc == 0:
        return mul(lhs.lhs, Const(lhs.rhs.value // rc))
    if isinstance(lhs, Binary) and lhs.op == Kind.ADD:
        if largest_known_divisor(lhs.lhs) % rc == 0 or largest_known_divisor(lhs.rhs) % rc == 0:
            return add(floordiv(lhs.lhs, rhs), floordiv(lhs.rhs, rhs))
    return Binary(Kind.FLOORDIV, lhs, rhs)


def ceildiv(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    lc, rc = const_value(lhs), const_value(rhs)
    if rc is None or rc < 1:
        return Binary(Kind.CEILDIV, lhs, rhs)
    if lc is not None:
        return Const(-((-lc) // rc))
    if rc == 1:
        return lhs
    if isinstance(lhs, Binary) and lhs.op == Kind.MUL and isinstance(lhs.rhs, Const) and lhs.rhs.value % rc == 0:
        return mul(lhs.lhs, Const(lhs.rhs.value // rc))
    return Binary(Kind.CEILDIV, lhs, rhs)


def mod(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    lc, rc = const_value(lhs), const_value(rhs)
    if rc is None or rc < 1:
        return Binary(Kind.MOD, lhs, rhs)
    if lc is not None:
        return Const(lc % rc)
    if largest_known_divisor(lhs) % rc == 0:
        return Const(0)
    if isinstance(lhs, Binary) and lhs.op == Kind.ADD:
        if largest_known_divisor(lhs.lhs) % rc == 0:
            return mod(lhs.rhs, rhs)
        if largest_known_divisor(lhs.rhs) % rc == 0:
            return mod(lhs.lhs, rhs)
    if isinstance(lhs, Binary) and lhs.op == Kind.MOD and isinstance(lhs.rhs, Const):
        if lhs.rhs.value >= 1 and lhs.rhs.value % rc == 0:
            return mod(lhs.lhs, rhs)
    return Binary(Kind.MOD, lhs, rhs)


def minimum(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    lc, rc = const_value(lhs), const_value(rhs)
    return Const(min(lc, rc)) if lc is not None and rc is not None else Binary(Kind.MIN, lhs, rhs)


def maximum(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    lc, rc = const_value(lhs), const_value(rhs)
    return Const(max(lc, rc)) if lc is not None and rc is not None else Binary(Kind.MAX, lhs, rhs)


#: the kinds written as calls, ``min(a, b)``, by their names
CALLS = {Kind.MIN: "min", Kind.MAX: "max"}

_BUILD: dict[Kind, Callable[[AffineExpr, AffineExpr], AffineExpr]] = {
    Kind.ADD: add, Kind.MUL: mul, Kind.FLOORDIV: floordiv, Kind.CEILDIV: ceildiv, Kind.MOD: mod,
    Kind.MIN: minimum, Kind.MAX: maximum}


def build(op: Kind, lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    """``lhs <op> rhs`` through the canonicalising constructor of *op*."""
    return _BUILD[op](lhs, rhs)


# -- traversal ------------------------------------------------------------------------------

def replace(e: AffineExpr, dims: Sequence[AffineExpr] | None = None,
            symbols: Sequence[AffineExpr] | None = None) -> AffineExpr:
    """*e* with dim ``k`` replaced by ``dims[k]`` and symbol ``k`` by ``symbols[k]``,
    rebuilt with the canonicalising constructors (MLIR's ``replaceDimsAndSymbols``)."""
    if isinstance(e, Dim):
        return dims[e.position] if dims is not None else e
    if isinstance(e, Symbol):
        return symbols[e.position] if symbols is not None else e
    if isinstance(e, Binary):
        return build(e.op, replace(e.lhs, dims, symbols), replace(e.rhs, dims, symbols))
    return e


def walk(e: AffineExpr) -> list[AffineExpr]:
    """Every node of *e*, parents before children."""
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        out.append(x)
        if isinstance(x, Binary):
            stack.extend((x.rhs, x.lhs))
    return out


def uses_dim(e: AffineExpr, k: int) -> bool:
    return any(isinstance(x, Dim) and x.position == k for x in walk(e))


def uses_symbol(e: AffineExpr, k: int) -> bool:
    return any(isinstance(x, Symbol) and x.position == k for x in walk(e))


def evaluate(e: AffineExpr, dims: Sequence[int], symbols: Sequence[int]) -> int:
    """The value of *e*: floor division, ceiling division, and XLA's mod (``a mod b`` is in
    ``[0, |b|)``, so for b < 0 it is not ``a - (a floordiv b) * b``)."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Dim):
        return dims[e.position]
    if isinstance(e, Symbol):
        return symbols[e.position]
    assert isinstance(e, Binary)
    a, b = evaluate(e.lhs, dims, symbols), evaluate(e.rhs, dims, symbols)
    if e.op == Kind.ADD:
        return a + b
    if e.op == Kind.MUL:
        return a * b
    if e.op == Kind.FLOORDIV:
        return a // b
    if e.op == Kind.CEILDIV:
        return -((-a) // b)
    if e.op == Kind.MIN:
        return min(a, b)
    if e.op == Kind.MAX:
        return max(a, b)
    return a % abs(b)  # XLA's mod: in [0, |b|) whatever the divisor's sign


# -- printing -------------------------------------------------------------------------------

_SPELLING = {Kind.ADD: " + ", Kind.MUL: " * ", Kind.FLOORDIV: " floordiv ", Kind.CEILDIV: " ceildiv ",
             Kind.MOD: " mod "}


def print_expr(e: AffineExpr, dim_name: Callable[[int], str], symbol_name: Callable[[int], str]) -> str:
    """*e* as XLA HEAD prints it (MLIR's spelling, XLA's brackets), with the given names."""
    out: list[str] = []
    _print(e, False, dim_name, symbol_name, out)
    return "".join(out)


def _chains_left(lhs: AffineExpr, op: Kind) -> bool:
    """XLA HEAD prints the left operand of *op* bare when it is a negation (``-d0 mod 2``) or
    the same operator (``d0 mod 20 mod 7``); any other product, division or mod is bracketed."""
    if not isinstance(lhs, Binary):
        return False
    return lhs.op == op or (lhs.op == Kind.MUL and const_value(lhs.rhs) == -1)


def _print(e: AffineExpr, strong: bool, dn: Callable[[int], str], sn: Callable[[int], str],
           out: list[str]) -> None:
    if isinstance(e, Symbol):
        out.append(sn(e.position))
        return
    if isinstance(e, Dim):
        out.append(dn(e.position))
        return
    if isinstance(e, Const):
        out.append(str(e.value))
        return
    assert isinstance(e, Binary)
    lhs, rhs = e.lhs, e.rhs
    if e.op in CALLS:  # a call: never bracketed
        out.append(f"{CALLS[e.op]}(")
        _print(lhs, False, dn, sn, out)
        out.append(", ")
        _print(rhs, False, dn, sn, out)
        out.append(")")
        return
    if e.op != Kind.ADD:
        if strong:
            out.append("(")
        if e.op == Kind.MUL and const_value(rhs) == -1:
            out.append("-")
            _print(lhs, True, dn, sn, out)
        else:
            _print(lhs, not _chains_left(lhs, e.op), dn, sn, out)
            out.append(_SPELLING[e.op])
            _print(rhs, True, dn, sn, out)
        if strong:
            out.append(")")
        return
    if strong:
        out.append("(")
    if isinstance(rhs, Binary) and rhs.op == Kind.MUL and isinstance(rhs.rhs, Const) and rhs.rhs.value < 0:
        _print(lhs, False, dn, sn, out)
        out.append(" - ")
        if rhs.rhs.value == -1:
            _print(rhs.lhs, rhs.lhs.kind == Kind.ADD, dn, sn, out)
        else:
            _print(rhs.lhs, not _chains_left(rhs.lhs, Kind.MUL), dn, sn, out)
            out.append(f" * {-rhs.rhs.value}")
    elif isinstance(rhs, Const) and rhs.value < 0:
        _print(lhs, False, dn, sn, out)
        out.append(f" - {-rhs.value}")
    else:
        _print(lhs, False, dn, sn, out)
        out.append(" + ")
        _print(rhs, False, dn, sn, out)
    if strong:
        out.append(")")
