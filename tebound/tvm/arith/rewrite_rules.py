"""TVM's rewrite rules for ``+ - * / % // min max``, in TVM's order (its ``rewrite_simplify.cc``).

A rule list holds :class:`Rule` entries (a source pattern or alternatives, the result, an
optional condition ``cond(m, s)`` on the bindings *m* and the simplifier *s*, and whether the
result is simplified again) and plain functions ``step(s, e)`` for the rules TVM writes as code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from schedule.ir.expr import Add, Expr, FloorDiv, FloorMod, Mod, Mul
from tebound.tvm.arith.const_fold import make_const, trunc_div
from tebound.tvm.arith.pattern import (
    PCall,
    PInt,
    PVar,
    broadcast,
    build,
    floordiv,
    floormod,
    match_any,
    one_like,
    pmax,
    pmin,
    ramp,
    select,
    truncdiv,
    truncmod,
    zero_like,
)


class Rule(NamedTuple):
    src: Any
    res: Any
    cond: Callable[..., bool] | None
    recursive: bool


def R(src: Any, res: Any, cond: Callable[..., bool] | None = None) -> Rule:
    """``TVM_TRY_REWRITE(_IF)``."""
    return Rule(src, res, cond, False)


def RR(src: Any, res: Any, cond: Callable[..., bool] | None = None) -> Rule:
    """``TVM_TRY_RECURSIVE_REWRITE(_IF)``: the result is simplified again."""
    return Rule(src, res, cond, True)


x, y, z, b1, b2, s1, s2 = (PVar(n) for n in ("x", "y", "z", "b1", "b2", "s1", "s2"))
c1, c2, c3 = (PVar(n, "int") for n in ("c1", "c2", "c3"))
c4 = PVar("c4", "float")
lanes = PVar("lanes", "lanes")
K = PInt


def _neg(m: Any, s: Any) -> bool:
    return m.c1 == -m.c2


def _ge0(*names: str) -> Callable[..., bool]:
    return lambda m, s: all(s.ge(m[n], 0) for n in names)


def _c1_c2c3(m: Any, s: Any) -> bool:
    return m.c1 != 0 and m.c3 == m.c1 * m.c2


ADD_VECTOR = [
    R(ramp(b1, s1, lanes) + ramp(b2, s2, lanes), ramp(b1 + b2, s1 + s2, lanes)),
    R(ramp(b1, s1, lanes) + broadcast(x, lanes), ramp(b1 + x, s1, lanes)),
    R(broadcast(x, lanes) + ramp(b1, s1, lanes), ramp(x + b1, s1, lanes)),
    R(broadcast(x, lanes) + broadcast(y, lanes), broadcast(x + y, lanes)),
    R(x + broadcast(c4, lanes), x, lambda m, s: m.c4 == 0.0),
]

ADD_INDEX = [
    R((x - y) + y, x),
    R(x + (y - x), y),
    R((x - y) + (y - z), x - z),
    R((x - y) + (z - x), z - y),
    R(pmin(x, y - z) + z, pmin(x + z, y)),
    R(pmin(x - z, y) + z, pmin(x, y + z)),
    R(pmax(x, y - z) + z, pmax(x + z, y)),
    R(pmax(x - z, y) + z, pmax(x, y + z)),
    R(pmin(x, y + z * c1) + z * c2, pmin(x + z * c2, y), _neg),
    R(pmax(x, y + z * c1) + z * c2, pmax(x + z * c2, y), _neg),
    R(pmin(y + z * c1, x) + z * c2, pmin(x + z * c2, y), _neg),
    R(pmax(y + z * c1, x) + z * c2, pmax(x + z * c2, y), _neg),
    R([pmax(x, y) + pmin(x, y), pmin(x, y) + pmax(x, y), pmax(x, y) + pmin(y, x), pmin(x, y) + pmax(y, x)], x + y),
    R(pmin(x, y + c1) + c2, pmin(x + c2, y), _neg),
    R(pmin(x + c1, y) + c2, pmin(x, y + c2), _neg),
    R(pmax(x, y + c1) + c2, pmax(x + c2, y), _neg),
    R(pmax(x + c1, y) + c2, pmax(x, y + c2), _neg),
    R((x + c1) + c2, x + (c1 + c2)),
    R(x + x, x * 2),
    R([x * y + x, y * x + x, x + y * x, x + x * y], x * (y + 1)),
    R([x * y + x * z, y * x + x * z, x * y + z * x, y * x + z * x], x * (y + z)),
    R(truncdiv(x, c1) * c1 + truncmod(x, c1), x),
    R([floordiv(x, y) * y + floormod(x, y), y * floordiv(x, y) + floormod(x, y),
       floormod(x, y) + floordiv(x, y) * y, floormod(x, y) + y * floordiv(x, y)], x),
    R(floordiv(floormod(x, c2) + c1, c2) + floordiv(x, c2), floordiv(x + c1, c2), lambda m, s: m.c2 > 0),
    RR(floordiv(x, 2) + floormod(x, 2), floordiv(x + 1, 2)),
    R(floormod(x + c1, 2) + floormod(x, 2), one_like(x), lambda m, s: m.c1 % 2 == 1),
    R(floormod(x, 2) + floormod(x + c1, 2), one_like(x), lambda m, s: m.c1 % 2 == 1),
    RR([x + (c1 - y), (c1 - y) + x], (x - y) + c1),
    RR([(x + c1) + y, x + (c1 + y), x + (y + c1)], (x + y) + c1),
    RR(x + pmax(y, z), pmax(y, z) + x),
    RR(x + pmin(y, z), pmin(y, z) + x),
    RR(truncmod(y, c1) + x * c1, x * c1 + truncmod(y, c1)),
    RR(floormod(y, c1) + x * c1, x * c1 + floormod(y, c1)),
]

ADD_ANY = [R(select(x, b1, b2) + select(x, s1, s2), select(x, b1 + s1, b2 + s2))]

SUB_VECTOR = [
    R(ramp(b1, s1, lanes) - ramp(b2, s2, lanes), ramp(b1 - b2, s1 - s2, lanes)),
    R(ramp(b1, s1, lanes) - broadcast(x, lanes), ramp(b1 - x, s1, lanes)),
    R(broadcast(x, lanes) - ramp(b1, s1, lanes), ramp(x - b1, 0 - s1, lanes)),
    R(broadcast(x, lanes) - broadcast(y, lanes), broadcast(x - y, lanes)),
]

_nz = lambda m, s: m.c1 != 0  # noqa: E731

SUB_INDEX = [
    R([(x + y) - y, (y + x) - y], x),
    R([x - (y + x), x - (x + y)], 0 - y),
    R([pmin(x, y) - y, x - pmax(y, x)], pmin(x - y, 0)),
    R([x - pmax(x, y), pmin(y, x) - y], pmin(K(0), x - y)),
    R([pmax(x, y) - y, x - pmin(y, x)], pmax(x - y, 0)),
    R([x - pmin(x, y), pmax(y, x) - y], pmax(K(0), x - y)),
    R(x - x, zero_like(x)),
    R([x * y - x, y * x - x], x * (y - 1)),
    R([x - y * x, x - x * y], x * (1 - y)),
    R([x * y - x * z, y * x - x * z, x * y - z * x, y * x - z * x], x * (y - z)),
    R((x + c1) - c2, x + (c1 - c2)),
    R((c1 - x) - (c2 - y), (y - x) + (c1 - c2)),
    R([(x + y) - (x + z), (x + y) - (z + x), (y + x) - (z + x), (y + x) - (x + z)], y - z),
    R([pmin(x + y, z) - x, pmin(y + x, z) - x], pmin(y, z - x)),
    R([pmin(z, x + y) - x, pmin(z, y + x) - x], pmin(z - x, y)),
    R([pmax(x + y, z) - x, pmax(y + x, z) - x], pmax(y, z - x)),
    R([pmax(z, x + y) - x, pmax(z, y + x) - x], pmax(z - x, y)),
    R([x - pmin(x + y, z), x - pmin(y + x, z)], pmax(0 - y, x - z)),
    R([x - pmin(z, x + y), x - pmin(z, y + x)], pmax(x - z, 0 - y)),
    R([x - pmax(x + y, z), x - pmax(y + x, z)], pmin(0 - y, x - z)),
    R([x - pmax(z, x + y), x - pmax(z, y + x)], pmin(x - z, 0 - y)),
    R(pmin(x, y) - pmin(y, x), zero_like(x)),
    R(pmax(x, y) - pmax(y, x), zero_like(x)),
    R([pmin(b1, b2) - pmin(s1, s2), pmin(b1, b2) - pmin(s2, s1)], b1 - s1,
      lambda m, s: s.prove_equal(m.ev((b1 - s1) - (b2 - s2)), 0)),
    R([pmax(b1, b2) - pmax(s1, s2), pmax(b1, b2) - pmax(s2, s1)], b1 - s1,
      lambda m, s: s.prove_equal(m.ev((b1 - s1) - (b2 - s2)), 0)),
    R(x - truncdiv(x, c1) * c1, truncmod(x, c1), _nz),
    R(truncdiv(x, c1) * c1 - x, 0 - truncmod(x, c1), _nz),
    R(x - (truncdiv(x + y, c1)) * c1, truncmod(x + y, c1) - y, _nz),
    R((truncdiv(x + y, c1)) * c1 - x, y - truncmod(x + y, c1), _nz),
    R(x - truncdiv(x - y, c1) * c1, truncmod(x - y, c1) + y, _nz),
    R(truncdiv(x - y, c1) * c1 - x, 0 - truncmod(x - y, c1) - y, _nz),
    R(x * c2 - truncdiv(x, c1) * c3, truncmod(x, c1) * c2, _c1_c2c3),
    R(truncdiv(x, c1) * c3 - x * c2, 0 - truncmod(x, c1) * c2, _c1_c2c3),
    R(x * c2 - truncdiv(x + y, c1) * c3, (truncmod(x + y, c1) - y) * c2, _c1_c2c3),
    R(truncdiv(x + y, c1) * c3 - x * c2, (y - truncmod(x + y, c1)) * c2, _c1_c2c3),
    R(x * c2 - truncdiv(x - y, c1) * c3, (truncmod(x - y, c1) + y) * c2, _c1_c2c3),
    R(truncdiv(x - y, c1) * c3 - x * c2, (0 - truncmod(x - y, c1) - y) * c2, _c1_c2c3),
    R(truncdiv(x + c1, c3) - truncdiv(x + c2, c3), truncdiv(truncmod(x + floormod(c2, c3), c3) + (c1 - c2), c3),
      lambda m, s: s.ge(m.x, -m.c2) and m.c1 >= m.c2 and m.c3 > 0),
    R(truncdiv(x + c1, c3) - truncdiv(x, c3), truncdiv(truncmod(x, c3) + c1, c3),
      lambda m, s: s.ge(m.x, 0) and m.c1 >= 0 and m.c3 > 0),
    R(x - floordiv(x, c1) * c1, floormod(x, c1), _nz),
    R(floordiv(x, c1) * c1 - x, 0 - floormod(x, c1), _nz),
    R(x - floordiv(x + y, c1) * c1, floormod(x + y, c1) - y, _nz),
    R(floordiv(x + y, c1) * c1 - x, y - floormod(x + y, c1), _nz),
    R(x - floordiv(x - y, c1) * c1, floormod(x - y, c1) + y, _nz),
    R(floordiv(x - y, c1) * c1 - x, 0 - floormod(x - y, c1) - y, _nz),
    RR(floordiv(x + c1, 2) - floordiv(x + c2, 2),
       floormod(x, 2) * (floormod(c1, 2) - floormod(c2, 2)) + (floordiv(c1, 2) - floordiv(c2, 2))),
    RR(floordiv(x, 2) - floordiv(x + c2, 2), floormod(x, 2) * (0 - floormod(c2, 2)) - floordiv(c2, 2)),
    RR(floordiv(x + c1, 2) - floordiv(x, 2), floormod(x, 2) * floormod(c1, 2) + floordiv(c1, 2)),
    R(x * c2 - floordiv(x, c1) * c3, floormod(x, c1) * c2, _c1_c2c3),
    R(floordiv(x, c1) * c3 - x * c2, 0 - floormod(x, c1) * c2, _c1_c2c3),
    R(x * c2 - floordiv(x + y, c1) * c3, (floormod(x + y, c1) - y) * c2, _c1_c2c3),
    R(floordiv(x + y, c1) * c3 - x * c2, (y - floormod(x + y, c1)) * c2, _c1_c2c3),
    R(x * c2 - floordiv(x - y, c1) * c3, (floormod(x - y, c1) + y) * c2, _c1_c2c3),
    R(floordiv(x - y, c1) * c3 - x * c2, (0 - floormod(x - y, c1) - y) * c2, _c1_c2c3),
    RR(floordiv(x + 1, 2) - floormod(x, 2), floordiv(x, 2)),
    R(floordiv(x + c1, c3) - floordiv(x + c2, c3), floordiv(floormod(x + floormod(c2, c3), c3) + (c1 - c2), c3),
      lambda m, s: m.c3 > 0),
    R(floordiv(x + c1, c3) - floordiv(x, c3), floordiv(floormod(x, c3) + c1, c3), lambda m, s: m.c3 > 0),
    R(x - c1, x + (0 - c1)),
    RR((x + c1) - y, (x - y) + c1),
    RR(x - (y + c1), (x - y) + (0 - c1)),
    RR(x - (y - z), (x + z) - y),
    RR(x - y * c1, x + y * (0 - c1)),
]

_pure = lambda name: (lambda m, s: s.pure(m[name]))  # noqa: E731

SUB_FLOAT = [
    R(x - x, zero_like(x), _pure("x")),
    R((x + y) - y, x, _pure("y")),
    R((x + y) - x, y, _pure("x")),
    R(x - (y + x), 0 - y, _pure("x")),
    R(x - (x + y), 0 - y, _pure("x")),
]

SUB_ANY = [
    R(select(x, b1, b2) - select(x, s1, s2), select(x, b1 - s1, b2 - s2)),
    R(select(x, y, z) - z, select(x, y - z, zero_like(z))),
    R(select(x, y, z) - y, select(x, zero_like(y), z - y)),
]

MUL_VECTOR = [
    R(broadcast(x, lanes) * broadcast(y, lanes), broadcast(x * y, lanes)),
    R([ramp(b1, s1, lanes) * broadcast(x, lanes), broadcast(x, lanes) * ramp(b1, s1, lanes)],
      ramp(b1 * x, s1 * x, lanes)),
    R(broadcast(c4, lanes) * x, broadcast(c4, lanes), lambda m, s: m.c4 == 0.0),
]

MUL_INDEX = [
    R((x + c1) * c2, x * c2 + c1 * c2),
    R((x * c1) * c2, x * (c1 * c2)),
    R([pmin(x, y) * pmax(x, y), pmax(x, y) * pmin(x, y)], x * y),
    R(floordiv(x - floormod(x, c2), c1) * c1, x - floormod(x, c2), _neg),
    RR(x * (c1 * y), (x * y) * c1),
    RR(c1 * x, x * c1),
    RR((x - y) * c1, (y - x) * (0 - c1), lambda m, s: m.c1 < 0),
]


def _tdiv_mul(s: Any, e: Any) -> Expr | None:
    m = match_any(truncdiv(x * c1, c2), e)
    if m is not None and m.c1 > 0 and m.c2 > 0:
        if m.c1 % m.c2 == 0:
            return m.ev(x * truncdiv(c1, c2))
        if m.c2 % m.c1 == 0:
            return m.ev(truncdiv(x, truncdiv(c2, c1)))
    return None


def _tdiv_cond(*nonneg: Any) -> Callable[..., bool]:
    def cond(m: Any, s: Any) -> bool:
        return (m.c1 >= 0 and m.c2 > 0 and m.c1 % m.c2 == 0
                and all(s.ge(m.ev(p), 0) for p in nonneg))
    return cond


DIV_INDEX = [
    R(truncdiv(truncdiv(x, c1), c2), truncdiv(x, c1 * c2), lambda m, s: m.c1 > 0 and m.c2 > 0),
    R(truncdiv(truncdiv(x, c1) + c2, c3), truncdiv(x + c1 * c2, c1 * c3),
      lambda m, s: m.c1 > 0 and m.c2 >= 0 and m.c3 > 0 and s.ge(m.x, 0)),
    _tdiv_mul,
    R(truncdiv(x, x), one_like(x)),
    R([truncdiv(x * c1, x), truncdiv(c1 * x, x)], c1),
    R(truncdiv(x * c1 + y, c2), x * truncdiv(c1, c2) + truncdiv(y, c2), _tdiv_cond(x, y)),
    R(truncdiv(pmin(x * c1, y), c2), pmin(x * truncdiv(c1, c2), truncdiv(y, c2)), _tdiv_cond(x, y)),
    R(truncdiv(pmax(x * c1, y), c2), pmax(x * truncdiv(c1, c2), truncdiv(y, c2)), _tdiv_cond(x, y)),
    R(truncdiv(y + x * c1, c2), truncdiv(y, c2) + x * truncdiv(c1, c2), _tdiv_cond(x, y)),
    R(truncdiv(pmin(y, x * c1), c2), pmin(truncdiv(y, c2), x * truncdiv(c1, c2)), _tdiv_cond(x, y)),
    R(truncdiv(pmax(y, x * c1), c2), pmax(truncdiv(y, c2), x * truncdiv(c1, c2)), _tdiv_cond(x, y)),
    R(truncdiv(x * c1 + y + z, c2), x * truncdiv(c1, c2) + truncdiv(y + z, c2), _tdiv_cond(x, y + z)),
    R(truncdiv(x * c1 - y + z, c2), x * truncdiv(c1, c2) + truncdiv(z - y, c2), _tdiv_cond(x, z - y)),
    R(truncdiv(x * c1 + y - z, c2), x * truncdiv(c1, c2) + truncdiv(y - z, c2), _tdiv_cond(x, y - z)),
    R(truncdiv(y + x * c1 + z, c2), x * truncdiv(c1, c2) + truncdiv(y + z, c2),
      lambda m, s: m.c1 > 0 and _tdiv_cond(x, y + z)(m, s)),
    R(truncdiv(x + c1, c2), truncdiv(x, c2) + truncdiv(c1, c2),
      lambda m, s: m.c1 > 0 and _tdiv_cond(x)(m, s)),
    R([truncdiv(x + y, x), truncdiv(y + x, x)], truncdiv(y, x) + 1, _ge0("x", "y")),
    R([truncdiv((x + y) + z, x), truncdiv((y + x) + z, x), truncdiv(y + (z + x), x), truncdiv(y + (x + z), x)],
      truncdiv(y + z, x) + 1, lambda m, s: s.ge(m.x, 0) and s.ge(m.ev(y + z), 0)),
    R([truncdiv(x * y, y), truncdiv(y * x, y)], x, _ge0("x", "y")),
    R([truncdiv(x * z + y, z), truncdiv(z * x + y, z)], x + truncdiv(y, z), _ge0("x", "y", "z")),
    R([truncdiv(y + x * z, z), truncdiv(y + z * x, z)], truncdiv(y, z) + x, _ge0("x", "y", "z")),
]

MOD_INDEX = [
    R(truncmod(x * c1, c2), zero_like(x), lambda m, s: m.c2 != 0 and m.c1 % m.c2 == 0),
    R(truncmod(x * c1 + y, c2), truncmod(y, c2),
      lambda m, s: m.c2 > 0 and m.c1 % m.c2 == 0 and s.ge(m.ev(x * c1), 0) and s.ge(m.y, 0)),
    R(truncmod(x + c1, c2), truncmod(x, c2),
      lambda m, s: m.c2 > 0 and m.c1 >= 0 and m.c1 % m.c2 == 0 and s.ge(m.x, 0)),
    R(truncmod(x + y * c1, c2), truncmod(x, c2),
      lambda m, s: m.c2 > 0 and m.c1 % m.c2 == 0 and s.ge(m.x, 0) and s.ge(m.ev(y * c1), 0)),
    RR(truncmod(x, c1), PCall(lambda m: build(Mod, m.x, make_const(m.x.dtype, -m.c1))), lambda m, s: m.c1 < 0),
]


def _tmod_modular(s: Any, e: Any) -> Expr | None:
    m = match_any(truncmod(x, c1), e)
    if m is not None:
        mod = s.modular_set(m.x)
        if m.c1 > 0 and mod.coeff % m.c1 == 0 and s.ge(m.x, 0):
            return m.ev(truncmod(PCall(lambda _: make_const(m.x.dtype, mod.base)), c1))
    return None


MOD_INDEX.append(_tmod_modular)


def _fdiv_linear(s: Any, e: Any) -> Expr | None:
    m = match_any([floordiv(x * c1 + y, c2), floordiv(x * c1, c2), floordiv(y + x * c1, c2)], e)
    if m is None:
        return None
    c1v, c2v = m.c1, m.c2
    xv = m.x
    yval = m["y"] if "y" in m else make_const(xv.dtype, 0)
    if c2v == 0:
        return e
    c2e = make_const(xv.dtype, c2v)
    residue = build(FloorDiv, build_add(build(Mul, xv, make_const(xv.dtype, c1v % c2v)),
                                        build(FloorMod, yval, c2e)), c2e)
    y_div = make_const(xv.dtype, 0) if s.prove_equal(build(FloorDiv, yval, c2e), 0) else build(FloorDiv, yval, c2e)
    lo, hi = s.bound(residue)
    if lo == hi:
        return build_add(build(Mul, xv, build(FloorDiv, m.expr("c1"), c2e)),
                         build_add(y_div, make_const(xv.dtype, hi)))
    if c1v > 0 and c2v > 0 and c2v % c1v == 0 and s.lt(build(FloorMod, yval, c2e), c1v):
        return build_add(build(FloorDiv, xv, make_const(xv.dtype, c2v // c1v)), y_div)
    return None


def build_add(a: Expr, b: Expr) -> Expr:
    return build(Add, a, b)


_fdiv_ok = lambda m, s: m.c2 > 0 and m.c1 % m.c2 == 0  # noqa: E731

FLOORDIV_INDEX = [
    R(floordiv(floordiv(x, c1), c2), floordiv(x, c1 * c2), lambda m, s: m.c1 > 0 and m.c2 > 0),
    R(floordiv(floordiv(x, c1) + c2, c3), floordiv(x + c1 * c2, c1 * c3), lambda m, s: m.c1 > 0 and m.c3 > 0),
    _fdiv_linear,
    R(floordiv(x, x), one_like(x)),
    R([floordiv(x * c1, x), floordiv(c1 * x, x)], c1),
    R(floordiv(floormod(x, 2) + 1, 2), floormod(x, 2)),
    R(floordiv(pmin(x * c1, y), c2), pmin(x * floordiv(c1, c2), floordiv(y, c2)), _fdiv_ok),
    R(floordiv(pmax(x * c1, y), c2), pmax(x * floordiv(c1, c2), floordiv(y, c2)), _fdiv_ok),
    R(floordiv(pmin(y, x * c1), c2), pmin(floordiv(y, c2), x * floordiv(c1, c2)), _fdiv_ok),
    R(floordiv(pmax(y, x * c1), c2), pmax(floordiv(y, c2), x * floordiv(c1, c2)), _fdiv_ok),
    R(floordiv(x * c1 + y + z, c2), x * floordiv(c1, c2) + floordiv(y + z, c2), _fdiv_ok),
    R(floordiv(x * c1 + y + z, c2), floordiv(x, floordiv(c2, c1)),
      lambda m, s: m.c1 > 0 and m.c2 > 0 and m.c2 % m.c1 == 0 and s.prove_equal(m.ev(floordiv(y + z, c1)), 0)),
    R([floordiv(x * c1 - y + z, c2), floordiv(x * c1 + z - y, c2)], x * floordiv(c1, c2) + floordiv(z - y, c2),
      _fdiv_ok),
    R(floordiv(y + x * c1 + z, c2), x * floordiv(c1, c2) + floordiv(y + z, c2), _fdiv_ok),
    R(floordiv(x + c1, c2), floordiv(x, c2) + floordiv(c1, c2), _fdiv_ok),
    R(floordiv(x * c1, x * c2), floordiv(c1, c2), lambda m, s: m.c2 > 0),
    R([floordiv(x + y, x), floordiv(y + x, x)], floordiv(y, x) + 1, _ge0("x")),
    R([floordiv((x + y) + z, x), floordiv((y + x) + z, x), floordiv(y + (z + x), x), floordiv(y + (x + z), x)],
      floordiv(y + z, x) + 1, _ge0("x")),
    R([floordiv(x * y, y), floordiv(y * x, y)], x, _ge0("y")),
    R([floordiv(x * z + y, z), floordiv(z * x + y, z)], x + floordiv(y, z), _ge0("z")),
    R([floordiv(y + x * z, z), floordiv(y + z * x, z)], floordiv(y, z) + x, _ge0("z")),
    R(floordiv(x - floormod(x, c1), c1), floordiv(x, c1), _nz),
]


def _fmod_modular(s: Any, e: Any) -> Expr | None:
    m = match_any(floormod(x, c1), e)
    if m is not None and m.c1 > 0:
        mod = s.modular_set(m.x)
        if mod.coeff % m.c1 == 0:
            return m.ev(floormod(PCall(lambda _: make_const(m.x.dtype, mod.base)), c1))
        lo, hi = s.bound(m.x)
        if lo >= 0 and hi < m.c1:
            return m.x
    return None


FLOORMOD_INDEX = [
    R(floormod(x * c1, c2), floormod(x * floormod(c1, c2), c2), lambda m, s: m.c2 != 0),
    R(floormod(x * c1 + y, c2), floormod(x, floordiv(c2, c1)) * c1 + y,
      lambda m, s: m.c1 > 0 and m.c2 > 0 and m.c2 % m.c1 == 0 and s.prove_equal(m.ev(floordiv(y, c1)), 0)),
    R(floormod(x * c1 + y, c2), floormod(x * floormod(c1, c2) + y, c2), lambda m, s: m.c2 > 0),
    R(floormod(x + c1, c2), floormod(x + floormod(c1, c2), c2),
      lambda m, s: m.c2 > 0 and (m.c1 >= m.c2 or m.c1 < 0)),
    R(floormod(x + y * c1, c2), floormod(x + y * floormod(c1, c2), c2), lambda m, s: m.c2 > 0),
    R(floormod(x * c1, x * c2), x * floormod(c1, c2), lambda m, s: m.c2 != 0),
    R([floormod(x * y, y), floormod(y * x, y)], zero_like(y)),
    _fmod_modular,
]


def _min_max_code(is_min: bool) -> list[Any]:
    """The rules TVM writes as code for ``min`` (or, mirrored, ``max``)."""
    mm, other = (pmin, pmax) if is_min else (pmax, pmin)
    better = (lambda a, b: a < b) if is_min else (lambda a, b: a > b)

    def bounds(s: Any, e: Any) -> Expr | None:
        (alo, ahi), (blo, bhi) = s.bound(e.a), s.bound(e.b)
        if is_min:
            return e.a if ahi <= blo else (e.b if bhi <= alo else None)
        return e.a if alo >= bhi else (e.b if blo >= ahi else None)

    def offsets(s: Any, e: Any) -> Expr | None:
        m = match_any(mm(x + c1, x + c2), e)
        if m is not None:
            return m.ev(x + c1) if better(m.c1, m.c2) else m.ev(x + c2)
        m = match_any([mm(x + c1, x), mm(x, x + c1)], e)
        if m is not None:
            return m.ev(x + c1) if better(m.c1, 0) else m.x
        m = match_any(mm(c1 - x, c2 - x), e)
        if m is not None:
            return m.ev(c1 - x) if better(m.c1, m.c2) else m.ev(c2 - x)
        return None

    def divs(s: Any, e: Any) -> Expr | None:
        for div in (truncdiv, floordiv):
            m = match_any(mm(div(x, c1), div(y, c1)), e)
            if m is not None:
                return m.ev(div(mm(x, y), c1) if m.c1 > 0 else div(other(x, y), c1))
        m = match_any(mm(x * c1, y * c1), e)
        if m is not None:
            return m.ev(mm(x, y) * c1 if m.c1 > 0 else other(x, y) * c1)
        m = match_any(mm(x * c1, c2), e)
        if m is not None:
            a, b = m.c1, m.c2
            if a == 0:
                pick = (b < 0) if is_min else (b > 0)
                return m.expr("c2") if pick else m.expr("c1")
            if b % a == 0:
                q = PCall(lambda _: make_const(m.x.dtype, trunc_div(b, a)))
                return m.ev(mm(x, q) * c1 if a > 0 else other(x, q) * c1)
        return None

    return [bounds, offsets, divs]


MIN_VECTOR = [
    R(pmin(broadcast(x, lanes), broadcast(y, lanes)), broadcast(pmin(x, y), lanes)),
    R(pmin(pmin(x, broadcast(y, lanes)), broadcast(z, lanes)), pmin(x, broadcast(pmin(y, z), lanes))),
]
MAX_VECTOR = [
    R(pmax(broadcast(x, lanes), broadcast(y, lanes)), broadcast(pmax(x, y), lanes)),
    R(pmax(pmax(x, broadcast(y, lanes)), broadcast(z, lanes)), pmax(x, broadcast(pmax(y, z), lanes))),
]

_round = lambda m, s: m.c2 > 0 and m.c1 + 1 == m.c2  # noqa: E731
_min_code = _min_max_code(True)
_max_code = _min_max_code(False)

MIN_INDEX = [
    R(pmin(x, x), x),
    _min_code[0], _min_code[1],
    R([pmin(truncdiv(x + c1, c2) * c2, x), pmin(x, truncdiv(x + c1, c2) * c2),
       pmin(floordiv(x + c1, c2) * c2, x), pmin(x, floordiv(x + c1, c2) * c2)], x, _round),
    R([pmin(truncdiv(x + c1, c2) * c2, pmax(x, c2)), pmin(pmax(x, c2), truncdiv(x + c1, c2) * c2),
       pmin(floordiv(x + c1, c2) * c2, pmax(x, c2)), pmin(pmax(x, c2), floordiv(x + c1, c2) * c2)], pmax(x, c2),
      lambda m, s: _round(m, s) and s.ge(m.x, 1)),
    R([pmin(x, floordiv(x, c2) * c2), pmin(floordiv(x, c2) * c2, x)], floordiv(x, c2) * c2, lambda m, s: m.c2 > 0),
    R([pmin(pmax(x, y), pmin(x, y)), pmin(pmax(x, y), pmin(y, x)), pmin(pmin(x, y), pmax(x, y)),
       pmin(pmin(x, y), pmax(y, x)), pmin(pmin(x, y), x), pmin(pmin(x, y), y), pmin(x, pmin(x, y)),
       pmin(y, pmin(x, y))], pmin(x, y)),
    R([pmin(pmax(x, y), x), pmin(pmax(y, x), x), pmin(x, pmax(x, y)), pmin(x, pmax(y, x))], x),
    R(pmin(pmin(pmin(x, y), z), y), pmin(pmin(x, y), z)),
    R(pmin(pmin(pmin(pmin(x, y), z), s1), y), pmin(pmin(pmin(x, y), z), s1)),
    R(pmin(pmin(pmin(pmin(pmin(x, y), z), s1), s2), y), pmin(pmin(pmin(pmin(x, y), z), s1), s2)),
    R([pmin(pmax(x, y), pmax(x, z)), pmin(pmax(x, y), pmax(z, x)), pmin(pmax(y, x), pmax(x, z)),
       pmin(pmax(y, x), pmax(z, x))], pmax(pmin(y, z), x)),
    R([pmin(pmin(x, y), pmin(x, z)), pmin(pmin(x, y), pmin(z, x)), pmin(pmin(y, x), pmin(x, z)),
       pmin(pmin(y, x), pmin(z, x))], pmin(pmin(y, z), x)),
    R([pmin(y + x, z + x), pmin(y + x, x + z), pmin(x + y, x + z), pmin(x + y, z + x)], pmin(y, z) + x),
    R(pmin(y - x, z - x), pmin(y, z) - x),
    R(pmin(x - y, x - z), x - pmax(y, z)),
    R(pmin(pmin(x, c1), c2), pmin(x, pmin(c1, c2))),
    _min_code[2],
    RR(pmin(pmin(x, c1), y), pmin(pmin(x, y), c1)),
    RR(pmin(c1 - x, c2), c1 - pmax(x, c1 - c2), lambda m, s: m.c2 != 0),
]

MAX_INDEX = [
    R(pmax(x, x), x),
    _max_code[0], _max_code[1],
    R([pmax(truncdiv(x + c1, c2) * c2, x), pmax(x, truncdiv(x + c1, c2) * c2)], truncdiv(x + c1, c2) * c2, _round),
    R([pmax(floordiv(x + c1, c2) * c2, x), pmax(x, floordiv(x + c1, c2) * c2)], floordiv(x + c1, c2) * c2, _round),
    R([pmax(floordiv(x, c2) * c2, x), pmax(x, floordiv(x, c2) * c2)], x, lambda m, s: m.c2 > 0),
    R([pmax(pmin(x, y), x), pmax(pmin(y, x), x), pmax(x, pmin(x, y)), pmax(x, pmin(y, x))], x),
    R([pmax(pmin(x, y), pmax(x, y)), pmax(pmin(x, y), pmax(y, x)), pmax(pmax(x, y), pmin(x, y)),
       pmax(pmax(x, y), pmin(y, x)), pmax(pmax(x, y), x), pmax(pmax(x, y), y), pmax(x, pmax(x, y)),
       pmax(y, pmax(x, y))], pmax(x, y)),
    R(pmax(pmax(pmax(x, y), z), y), pmax(pmax(x, y), z)),
    R(pmax(pmax(pmax(pmax(x, y), z), s1), y), pmax(pmax(pmax(x, y), z), s1)),
    R(pmax(pmax(pmax(pmax(pmax(x, y), z), s1), s2), y), pmax(pmax(pmax(pmax(x, y), z), s1), s2)),
    R([pmax(pmax(x, y), pmax(x, z)), pmax(pmax(x, y), pmax(z, x)), pmax(pmax(y, x), pmax(x, z)),
       pmax(pmax(y, x), pmax(z, x))], pmax(pmax(y, z), x)),
    R([pmax(pmin(x, y), pmin(x, z)), pmax(pmin(x, y), pmin(z, x)), pmax(pmin(y, x), pmin(x, z)),
       pmax(pmin(y, x), pmin(z, x))], pmin(pmax(y, z), x)),
    R([pmax(y + x, z + x), pmax(y + x, x + z), pmax(x + y, x + z), pmax(x + y, z + x)], pmax(y, z) + x),
    R(pmax(y - x, z - x), pmax(y, z) - x),
    R(pmax(x - y, x - z), x - pmin(y, z)),
    R(pmax(pmax(x, c1), c2), pmax(x, pmax(c1, c2))),
    _max_code[2],
    RR(pmax(pmax(x, c1), y), pmax(pmax(x, y), c1)),
    RR(pmax(c1 - x, c2), c1 - pmin(x, c1 - c2), lambda m, s: m.c2 != 0),
]

MIN_ANY = [R(pmin(select(x, y, z), select(x, s1, s2)), select(x, pmin(y, s1), pmin(z, s2)))]
MAX_ANY = [R(pmax(select(x, y, z), select(x, s1, s2)), select(x, pmax(y, s1), pmax(z, s2)))]
