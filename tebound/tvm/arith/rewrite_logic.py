"""TVM's rewrite rules for comparisons and ``&& || !``, in TVM's order (see :mod:`.rewrite_rules`)."""

from __future__ import annotations

from schedule.ir.expr import LE, LT, Add, Expr, IntImm
from tebound.tvm.arith.const_fold import make_const, trunc_mod  # C's %, as TVM's conditions compute it
from tebound.tvm.arith.pattern import (
    PExpr,
    broadcast,
    build,
    floordiv,
    floormod,
    match_any,
    pmax,
    pmin,
    ramp,
    truncdiv,
    truncmod,
)
from tebound.tvm.arith.rewrite_rules import RR, K, R, c1, c2, c3, lanes, s1, x, y, z

EQ_VECTOR = [R(broadcast(x, lanes).eq(broadcast(y, lanes)), broadcast(x.eq(y), lanes))]

EQ_INDEX = [
    R(c1.eq(x), x.eq(c1)),
    R((x - c1).eq(c2), x.eq(c2 + c1)),
    R((c1 - x).eq(c2), x.eq(c1 - c2)),
    R((x + c1).eq(c2), x.eq(c2 - c1)),
    RR((x * y).eq(0), x.eq(0) | y.eq(0)),
]

LT_VECTOR = [
    R(broadcast(x, lanes) < broadcast(y, lanes), broadcast(x < y, lanes)),
    R(ramp(x, s1, lanes) < ramp(y, s1, lanes), broadcast(x < y, lanes)),
]

_pos1 = lambda m, s: m.c1 > 0  # noqa: E731

LT_INDEX = [
    R(x + y < x + z, y < z),
    R(x + y < z + x, y < z),
    R(y + x < x + z, y < z),
    R(y + x < z + x, y < z),
    R(y - x < z - x, y < z),
    R(x - y < x - z, z < y),
    R(x < x + z, K(0) < z),
    R(x < z + x, K(0) < z),
    R(x < x - z, z < 0),
    R(x * c1 < y * c1, x < y, _pos1),
    R(x * c1 < y * c1, y < x, lambda m, s: m.c1 < 0),
    R(x * c2 < c1, x < truncdiv(c1 - 1, c2) + 1, lambda m, s: m.c1 > 0 and m.c2 > 0),
    R(x * c2 < c1, x < truncdiv(c1, c2), lambda m, s: m.c1 <= 0 and m.c2 > 0),
    R(x * c2 < c1, truncdiv(c1 - 1, c2) - 1 < x, lambda m, s: m.c1 > 0 and m.c2 < 0),
    R(x * c2 < c1, truncdiv(c1, c2) < x, lambda m, s: m.c1 <= 0 and m.c2 < 0),
    R(c1 < x * c2, truncdiv(c1 + 1, c2) - 1 < x, lambda m, s: m.c1 < 0 and m.c2 > 0),
    R(c1 < x * c2, truncdiv(c1, c2) < x, lambda m, s: m.c1 >= 0 and m.c2 > 0),
    R(c1 < x * c2, x < truncdiv(c1 + 1, c2) + 1, lambda m, s: m.c1 < 0 and m.c2 < 0),
    R(c1 < x * c2, x < truncdiv(c1, c2), lambda m, s: m.c1 >= 0 and m.c2 < 0),
    R(truncdiv(x, c1) < c2, x < c1 * c2, lambda m, s: m.c1 > 0 and m.c2 > 0),
    R(truncdiv(x, c1) < c2, x < c1 * (c2 - 1) + 1, lambda m, s: m.c1 > 0 and m.c2 <= 0),
    R(c1 < truncdiv(x, c2), (c1 + 1) * c2 - 1 < x, lambda m, s: m.c1 >= 0 and m.c2 > 0),
    R(c1 < truncdiv(x, c2), c1 * c2 < x, lambda m, s: m.c1 < 0 and m.c2 > 0),
    R(truncdiv(x, c1) * c1 < x, K(0) < truncmod(x, c1), _pos1),
    R(truncdiv(x, c1) * c1 < x + y, K(0) < truncmod(x, c1) + y, _pos1),
    R(truncdiv(x, c1) * c1 < x - y, y < truncmod(x, c1), _pos1),
    R(truncdiv(x + c2, c1) * c1 < x, c2 < truncmod(x + c2, c1), _pos1),
    R(truncdiv(x + c2, c1) * c1 < x + y, c2 < truncmod(x + c2, c1) + y, _pos1),
    R(truncdiv(x + c2, c1) * c1 < x - y, y < truncmod(x + c2, c1) + (0 - c2), _pos1),
    R(floordiv(x, c1) < c2, x < c1 * c2, _pos1),
    R(c1 < floordiv(x, c2), (c1 + 1) * c2 - 1 < x, lambda m, s: m.c2 > 0),
    R(floordiv(x, c1) * c1 < x, K(0) < floormod(x, c1), _pos1),
    R(floordiv(x, c1) * c1 < x + y, K(0) < floormod(x, c1) + y, _pos1),
    R(floordiv(x, c1) * c1 < x - y, y < floormod(x, c1), _pos1),
    R(floordiv(x + c2, c1) * c1 < x, c2 < floormod(x + c2, c1), _pos1),
    R(floordiv(x + c2, c1) * c1 < x + y, c2 < floormod(x + c2, c1) + y, _pos1),
    R(floordiv(x + c2, c1) * c1 < x - y, y < floormod(x + c2, c1) + (0 - c2), _pos1),
    RR(pmin(x, y) < z, (x < z) | (y < z)),
    RR(pmax(x, y) < z, (x < z) & (y < z)),
    RR(z < pmin(x, y), (z < x) & (z < y)),
    RR(z < pmax(x, y), (z < x) | (z < y)),
    RR([c1 < x + c2, c1 - x < c2], c1 - c2 < x),
    RR([c1 < c2 - x, x + c1 < c2], x < c2 - c1),
    RR(c1 < x - c2, c1 + c2 < x),
    RR(x - c2 < c1, x < c1 + c2),
    RR(x < c1 - y, x + y < c1),
    RR(c1 - y < x, c1 < x + y),
    RR(x < c1 + y, x - y < c1),
    RR(c1 + y < x, c1 < x - y),
]


def constant_offset(e: Expr) -> tuple[Expr, int]:
    """*e* as ``rest + offset`` when it adds or subtracts a constant (TVM's ``ExtractConstantOffset``)."""
    m = match_any(x + c1, e)
    if m is not None:
        return m.x, m.c1
    m = match_any(x - c1, e)
    if m is not None:
        return m.x, -m.c1
    m = match_any(c1 - x, e)
    if m is not None:
        return m.x, m.c1
    return e, 0


def merge_constants(e: LT) -> Expr | None:
    """``a + c < b + d`` with the constants on one side, or ``<=`` where they differ by one."""
    lhs, lo = constant_offset(e.a)
    rhs, ro = constant_offset(e.b)
    if lo == 0 and ro == 0:
        return None
    diff = ro - lo
    if diff == 0:
        return build(LT, lhs, rhs)
    if diff == 1:
        return build(LE, lhs, rhs)
    if diff < 0 and ro != 0:
        return build(LT, build(Add, lhs, make_const(lhs.dtype, -diff)), rhs)
    if diff > 0 and lo != 0:
        return build(LT, lhs, build(Add, rhs, make_const(rhs.dtype, diff)))
    return None


NOT_VECTOR = [R(~broadcast(x, lanes), broadcast(~x, lanes))]

NOT_ANY = [
    R(~(~x), x),
    R(~(x <= y), y < x),
    R(~(x >= y), x < y),
    R(~(x < y), y <= x),
    R(~(x > y), x <= y),
    R(~(x.eq(y)), x.ne(y)),
    R(~(x.ne(y)), x.eq(y)),
    RR(~(x | y), (~x) & (~y)),
    RR(~(x & y), (~x) | (~y)),
]

AND_VECTOR = [R(broadcast(x, lanes) & broadcast(y, lanes), broadcast(x & y, lanes))]
OR_VECTOR = [R(broadcast(x, lanes) | broadcast(y, lanes), broadcast(x | y, lanes))]

_FALSE = PExpr(IntImm("bool", 0))
_TRUE = PExpr(IntImm("bool", 1))


AND_ANY = [
    R(x.eq(y) & x.ne(y), _FALSE),
    R(x.ne(y) & x.eq(y), _FALSE),
    R(x & ~x, _FALSE),
    R((x <= y) & (y < x), _FALSE),
    R((y < x) & (x <= y), _FALSE),
    R((x < c1) & (c2 < x), _FALSE, lambda m, s: m.c2 + 1 >= m.c1),
    R((c2 < x) & (x < c1), _FALSE, lambda m, s: m.c2 + 1 >= m.c1),
    R([(x < c1) & (c2 <= x), (c2 <= x) & (x < c1), (x <= c1) & (c2 < x), (c2 < x) & (x <= c1)], _FALSE,
      lambda m, s: m.c2 >= m.c1),
    R([(x <= c1) & (c2 <= x), (c2 <= x) & (x <= c1)], _FALSE, lambda m, s: m.c2 > m.c1),
    R([x.eq(c1) & x.ne(c2), x.ne(c2) & x.eq(c1)], x.eq(c1) & c1.ne(c2)),
    RR([floordiv(x, c2).eq(c1) & floormod(x, c2).eq(c3), floormod(x, c2).eq(c3) & floordiv(x, c2).eq(c1)],
       x.eq(c1 * c2 + c3)),
    RR([(K(0) <= x - y * c1) & (x - y * c1 < c1), (x - y * c1 < c1) & (K(0) <= x - y * c1)],
       y.eq(floordiv(x, c1)), lambda m, s: m.c1 > 0),
    RR([(c1 < x - y * c1) & (x - y * c1 <= 0), (x - y * c1 < c1) & (K(0) <= x - y * c1)], y.eq(floordiv(x, c1))),
    RR([(K(0) <= x + y * c2) & (x + y * c2 < c1), (x + y * c2 < c1) & (K(0) <= x + y * c2)],
       y.eq(floordiv(x, c1)), lambda m, s: m.c2 == -m.c1),
    RR((x < c1) & (floormod(x, c2) < c3), (x < c1 - c2 + c3) & (floormod(x, c2) < c3),
       lambda m, s: trunc_mod(m.c1, m.c2) == 0),
    RR((x < c1) & (floormod(x, c2) < c3), (x < c1 - floormod(c1, c2) + c3) & (floormod(x, c2) < c3),
       lambda m, s: trunc_mod(trunc_mod(m.c1, m.c2) + m.c2, m.c2) > m.c3),
    RR((x <= c1) & (floormod(x, c2) < c3), (x < c1 + 1 - c2 + c3) & (floormod(x, c2) < c3),
       lambda m, s: trunc_mod(m.c1 + 1, m.c2) == 0),
    RR((x <= c1) & (floormod(x, c2) < c3), (x < c1 + 1 - floormod(c1, c2) + c3) & (floormod(x, c2) < c3),
       lambda m, s: trunc_mod(trunc_mod(m.c1 + 1, m.c2) + m.c2, m.c2) > m.c3),
    RR([floordiv(x, c2).eq(c1) & (floormod(x, c2) < c3), (floormod(x, c2) < c3) & floordiv(x, c2).eq(c1)],
       (c1 * c2 <= x) & (x < c1 * c2 + c3)),
    RR([floordiv(x, c2).eq(c1) & (floormod(x, c2) <= c3), (floormod(x, c2) <= c3) & floordiv(x, c2).eq(c1)],
       (c1 * c2 <= x) & (x <= c1 * c2 + c3)),
    RR([floordiv(x, c2).eq(c1) & (c3 <= floormod(x, c2)), (c3 <= floormod(x, c2)) & floordiv(x, c2).eq(c1)],
       (c1 * c2 + c3 <= x) & (x < (c1 + 1) * c2)),
    RR([floordiv(x, c2).eq(c1) & (c3 < floormod(x, c2)), (c3 < floormod(x, c2)) & floordiv(x, c2).eq(c1)],
       (c1 * c2 + c3 < x) & (x < (c1 + 1) * c2)),
    RR(x & (y & z), (x & y) & z),
]

OR_ANY = [
    R(x.eq(y) | x.ne(y), _TRUE),
    R(x.ne(y) | x.eq(y), _TRUE),
    R(x | ~x, _TRUE),
    R((x <= y) | (y < x), _TRUE),
    R((y < x) | (x <= y), _TRUE),
    R((x < y) | (y < x), x.ne(y)),
    R((x < c1) | (c2 < x), _TRUE, lambda m, s: m.c2 < m.c1),
    R((c2 < x) | (x < c1), _TRUE, lambda m, s: m.c2 < m.c1),
    R((x <= c1) | (c2 < x), _TRUE, lambda m, s: m.c2 <= m.c1),
    R((c2 < x) | (x <= c1), _TRUE, lambda m, s: m.c2 <= m.c1),
    R((x < c1) | (c2 <= x), _TRUE, lambda m, s: m.c2 <= m.c1),
    R((c2 <= x) | (x < c1), _TRUE, lambda m, s: m.c2 <= m.c1),
    R((x <= c1) | (c2 <= x), _TRUE, lambda m, s: m.c2 <= m.c1 + 1),
    R((c2 <= x) | (x <= c1), _TRUE, lambda m, s: m.c2 <= m.c1 + 1),
    R(x.ne(c1) | x.eq(c2), x.ne(c1) | c1.eq(c2)),
    R(x.eq(c2) | x.ne(c1), x.ne(c1) | c1.eq(c2)),
    RR((x < y) | x.eq(y), x <= y),
    RR((x < y) | y.eq(x), x <= y),
    RR(x.eq(y) | (x < y), x <= y),
    RR(y.eq(x) | (x < y), x <= y),
    RR(x | (y | z), (x | y) | z),
]
