"""XLA's indexing-map simplifier: canonical sums, mod and floordiv rewrites, constraint rules.

Ranges come from the variables' bounds (and, for results, from constraints on exactly the
same sub-expression). Rewrites follow XLA's ``AffineExprSimplifier`` so that simplified maps
print as XLA prints them; each is sound on the map's domain.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from bound.indexing import indexing_map as _indexing_map
from bound.indexing.affine_expr import (
    AffineExpr,
    Binary,
    Const,
    Dim,
    Kind,
    Symbol,
    floordiv,
    mod,
    mul,
    replace,
)
from bound.indexing.canonical import SORT_KEY, canonicalize
from bound.indexing.indexing_map import AffineMap, IndexingMap, Variable
from bound.indexing.intervals import INT64_MAX, INT64_MIN, Interval


class RangeEvaluator:
    """Intervals of expressions over a map's variable bounds (and optionally its constraints)."""

    def __init__(self, m: IndexingMap, use_constraints: bool) -> None:
        self.m = m
        self.use_constraints = use_constraints

    def __call__(self, e: AffineExpr) -> Interval:
        if isinstance(e, Const):
            return Interval(e.value, e.value)
        if isinstance(e, Dim):
            return self.m.dims[e.position].bounds
        if isinstance(e, Symbol):
            return self.m.symbol_variable(e.position).bounds
        assert isinstance(e, Binary)
        lhs, rhs = self(e.lhs), self(e.rhs)
        if e.op == Kind.ADD:
            out = lhs + rhs
        elif e.op == Kind.MUL:
            out = lhs * rhs
        elif e.op == Kind.MOD:
            m = max(abs(rhs.lower), abs(rhs.upper))
            inside = rhs.is_point and 0 <= lhs.lower and lhs.upper < rhs.lower
            out = lhs if inside else Interval(0, m - 1)
        elif e.op == Kind.FLOORDIV and rhs.is_point and rhs.lower != 0:
            out = lhs.floordiv(rhs.lower)
        elif e.op == Kind.MIN:
            out = Interval(min(lhs.lower, rhs.lower), min(lhs.upper, rhs.upper))
        elif e.op == Kind.MAX:
            out = Interval(max(lhs.lower, rhs.lower), max(lhs.upper, rhs.upper))
        else:  # ceildiv, or a division by a variable: XLA refuses these; we know nothing
            out = Interval(INT64_MIN, INT64_MAX)
        if self.use_constraints:
            c = self.m.constraints.get(e)
            if c is not None:
                out = out.intersect(c)
        return out

    def is_non_negative(self, e: AffineExpr) -> bool:
        return self(e).lower >= 0

    def is_non_positive(self, e: AffineExpr) -> bool:
        return self(e).upper <= 0


def summands(e: AffineExpr) -> list[AffineExpr]:
    """The terms of a nested sum, left to right."""
    if isinstance(e, Binary) and e.op == Kind.ADD:
        return [*summands(e.lhs), *summands(e.rhs)]
    return [e]


def map_summands(e: AffineExpr, fn: Callable[[AffineExpr], AffineExpr]) -> AffineExpr:
    if isinstance(e, Binary) and e.op == Kind.ADD:
        return map_summands(e.lhs, fn) + map_summands(e.rhs, fn)
    return fn(e)


def _trunc_mod(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    q = q if (a >= 0) == (b >= 0) else -q
    return a - q * b


class ExprSimplifier:
    """XLA's AffineExprSimplifier over one map; *replace_points* folds point ranges to constants."""

    def __init__(self, ranges: RangeEvaluator, replace_points: bool = True) -> None:
        self.range = ranges
        self.replace_points = replace_points

    def simplify(self, e: AffineExpr) -> AffineExpr:
        """Rewrite until nothing changes; the result is in XLA HEAD's canonical form."""
        e = canonicalize(e)
        while True:
            # the rewrites build with MLIR's constructors, whose order canonicalize undoes
            out = canonicalize(self.once(e))
            if out == e:
                return e
            e = out

    def once(self, e: AffineExpr) -> AffineExpr:
        if isinstance(e, Const):
            return e
        if self.replace_points:
            r = self.range(e)
            if r.is_point:
                return Const(r.lower)
        if not isinstance(e, Binary):
            return e
        if e.op == Kind.MUL:
            return self.rewrite_mul(e)
        if e.op == Kind.ADD:
            return self.rewrite_sum(e)
        if e.op == Kind.MOD:
            return self.rewrite_mod(e)
        if e.op == Kind.FLOORDIV:
            return self.rewrite_floordiv(e)
        if e.op in (Kind.MIN, Kind.MAX):
            return self.rewrite_min_max(e)
        return e

    def rewrite_min_max(self, e: Binary) -> AffineExpr:
        """The operand that is always the smaller (min) or the larger (max), by their ranges."""
        if e.lhs == e.rhs:
            return e.lhs
        lo, hi = self.range(e.lhs), self.range(e.rhs)
        if e.op == Kind.MAX:
            lo, hi = Interval(-hi.upper, -hi.lower), Interval(-lo.upper, -lo.lower)
            first, second = e.rhs, e.lhs
        else:
            first, second = e.lhs, e.rhs
        if lo.upper <= hi.lower:
            return first
        if hi.upper <= lo.lower:
            return second
        return e

    def point(self, e: AffineExpr) -> int | None:
        r = self.range(e)
        return r.lower if r.is_point else None

    def constant_rhs(self, e: AffineExpr, kind: Kind) -> int | None:
        if isinstance(e, Binary) and e.op == kind:
            return self.point(e.rhs)
        return None

    def split_scaled(self, e: AffineExpr) -> tuple[AffineExpr, int]:
        k = self.constant_rhs(e, Kind.MUL)
        return (e.lhs, k) if k is not None else (e, 1)  # type: ignore[attr-defined]

    # -- products and sums ---------------------------------------------------------------------
    def rewrite_mul(self, e: Binary) -> AffineExpr:
        k = self.point(e.rhs)
        if k is None:
            return e
        lhs = self.once(e.lhs)
        if k == 1:
            return lhs
        if isinstance(lhs, Binary) and lhs.op == Kind.ADD:
            return map_summands(lhs, lambda s: s * k)
        return lhs * k

    def rewrite_sum(self, e: AffineExpr) -> AffineExpr:
        mods: list[list] = []   # [x mod c expression, multiplier]
        divs: list[list] = []   # [x floordiv c expression, multiplier]
        terms: dict[AffineExpr, int] = {}
        for s in summands(e):
            x, k = self.split_scaled(self.once(s))
            if isinstance(x, Binary) and x.op == Kind.MOD:
                mods.append([x, k])
            elif isinstance(x, Binary) and x.op == Kind.FLOORDIV:
                divs.append([x, k])
            else:
                terms[x] = terms.get(x, 0) + k
        if divs:
            for md in mods:
                x_mod, m = md
                c = self.point(x_mod.rhs)
                if c is None:
                    continue
                div = self.simplify(floordiv(x_mod.lhs, x_mod.rhs))
                for dv in divs:
                    if dv[0] is not None and dv[0] == div and dv[1] == m * c:
                        terms[x_mod.lhs] = terms.get(x_mod.lhs, 0) + m
                        md[0] = dv[0] = None
                        break
            for dv in divs:
                x_div, n = dv
                if x_div is None or n > 0:
                    continue
                c = self.point(x_div.rhs)
                if c is None or c <= 0 or n % c != 0:
                    continue
                b = n // c
                for s in summands(x_div.lhs):
                    x, k = self.split_scaled(s)
                    terms[x] = terms.get(x, 0) + b * k
                mods.append([mod(x_div.lhs, x_div.rhs), -b])
                dv[0] = None
        parts = [mul(x, Const(k)) for x, k in terms.items()]
        parts += [mul(x, Const(k)) for x, k in (*mods, *divs) if x is not None]
        parts.sort(key=SORT_KEY)
        out: AffineExpr = Const(0)
        for p in parts:
            out = out + p
        return out

    # -- mod -------------------------------------------------------------------------------------
    def rewrite_mod(self, e: Binary) -> AffineExpr:
        m = self.point(e.rhs)
        if m is None or m < 0:  # the rules below read mod as floor-based, true only for m > 0
            return e
        if m == 0:
            return Const(0)
        lhs = self.once(e.lhs)
        r = self.range(lhs)
        off = -(r.lower // m) * m
        if r.upper + off < m:
            return lhs + off
        scale = self.constant_rhs(lhs, Kind.MUL)
        if scale is not None and scale > 0 and m % scale == 0:
            return mod(lhs.lhs, Const(m // scale)) * scale  # type: ignore[attr-defined]
        new_lhs: AffineExpr = Const(0)
        constant = 0
        for s in summands(lhs):
            if isinstance(s, Const):
                constant += s.value
                continue
            k = self.constant_rhs(s, Kind.MUL)
            if k is not None and k % m == 0:
                continue
            new_lhs = new_lhs + s
        if _trunc_mod(constant, m) != 0:
            new_lhs = new_lhs + _trunc_mod(constant, m)
        multiplied, g, rest = self.split_by_gcd(new_lhs)
        if g != 1 and m % g == 0:
            rest_range = self.range(rest)
            if rest_range == Interval(0, 0):
                return mod(multiplied, Const(m // g)) * g
            if Interval(0, g - 1).contains(rest_range):
                return mod(multiplied * g, e.rhs) + rest
        return e if new_lhs == e.lhs else mod(new_lhs, Const(m))

    def split_by_gcd(self, e: AffineExpr) -> tuple[AffineExpr, int, AffineExpr]:
        """``(A, g, B)`` with ``e == A*g + B``: g the gcd of the constant multipliers."""
        g = None
        for s in summands(e):
            k = self.constant_rhs(s, Kind.MUL)
            if k is not None:
                g = abs(k) if g is None else math.gcd(g, k)
        if g is None or g == 1:
            return Const(0), 1, e

        def multiplied(s: AffineExpr) -> AffineExpr:
            k = self.constant_rhs(s, Kind.MUL)
            return s.lhs * (k // g) if k is not None else Const(0)  # type: ignore[attr-defined]

        def rest(s: AffineExpr) -> AffineExpr:
            return Const(0) if self.constant_rhs(s, Kind.MUL) is not None else s
        return map_summands(e, multiplied), g, map_summands(e, rest)

    # -- floordiv --------------------------------------------------------------------------------
    def rewrite_floordiv(self, e: Binary) -> AffineExpr:
        d = self.point(e.rhs)
        lhs = self.once(e.lhs)
        if d is None:
            return floordiv(lhs, self.simplify(e.rhs))
        if d > 1:
            inner_mod = self.constant_rhs(lhs, Kind.MOD)
            if inner_mod is not None and inner_mod % d == 0:
                return mod(floordiv(lhs.lhs, Const(d)), Const(inner_mod // d))  # type: ignore[attr-defined]
            inner_div = self.constant_rhs(lhs, Kind.FLOORDIV)
            if inner_div is not None:
                return floordiv(lhs.lhs, Const(inner_div * d))  # type: ignore[attr-defined]
            out = self.simplify_sum_div(lhs, d)
            if out is not None:
                return out
        return floordiv(lhs, e.rhs) if lhs != e.lhs else e

    def simplify_sum_div(self, dividend: AffineExpr, d: int) -> AffineExpr | None:
        extracted: AffineExpr = Const(0)
        new: AffineExpr = Const(0)
        for s in summands(dividend):
            k = self.constant_rhs(s, Kind.MUL)
            if k is not None and k % d == 0:
                extracted = extracted + s.lhs * (k // d)  # type: ignore[attr-defined]
            else:
                new = new + s
        multiplied, g, rest = self.split_by_gcd(new)
        h = math.gcd(d, g)
        if h != 1:
            rest_range = self.range(rest)
            if Interval(0, h - 1).contains(rest_range):
                new, d = multiplied * (g // h), d // h
            elif rest_range.is_point and rest_range.lower != 0 and math.gcd(rest_range.lower, h) != 1:
                h2 = math.gcd(rest_range.lower, h)
                new, d = multiplied * (g // h2) + rest_range.lower // h2, d // h2
        inner = [s for s in summands(new) if self.constant_rhs(s, Kind.FLOORDIV) is not None]
        if len(inner) == 1:
            (a_div,) = inner
            c = self.constant_rhs(a_div, Kind.FLOORDIV)
            assert c is not None
            if c > 0:
                rest_sum: AffineExpr = Const(0)
                for s in summands(new):
                    if s is not a_div:
                        rest_sum = rest_sum + s
                new, d = a_div.lhs + rest_sum * c, d * c  # type: ignore[attr-defined]
        if new == dividend:
            return None
        return floordiv(new, Const(d)) + extracted


# -- the map-level driver ------------------------------------------------------------------------

def simplified(m: IndexingMap, replace_points: bool = True) -> IndexingMap:
    """XLA's ``IndexingMap::Simplify`` on a copy of *m*."""
    return simplify_in_place(m._copy(), replace_points)[0]


def simplify_in_place(m: IndexingMap, replace_points: bool = True) -> tuple[IndexingMap, bool]:
    """Simplify *m* itself; also returns whether it changed (as XLA's ``Simplify`` does)."""
    if m.affine_map is None or m.is_known_empty:
        return m, False
    changed_constraints = False
    while True:
        a = _simplify_constraint_exprs(m, replace_points)
        b = _simplify_constraint_ranges(m)
        changed_constraints |= a or b
        if not (a or b) or m.is_known_empty:
            break
    if m.is_known_empty:
        return m, True
    merged = merge_mod_constraints(m)
    if m.is_known_empty:
        return m, True
    simplifier = ExprSimplifier(RangeEvaluator(m, use_constraints=True), replace_points)
    results = tuple(simplifier.simplify(r) for r in m.results)
    # as in XLA, summands that only move to the canonical order count as a change (our parser
    # builds with MLIR's order, so a parsed canonical text may report one; its text is kept)
    changed = results != m.results
    m.affine_map = AffineMap(m.affine_map.num_dims, m.affine_map.num_symbols, results)
    return m, changed or changed_constraints or merged


def _simplify_constraint_exprs(m: IndexingMap, replace_points: bool) -> bool:
    """Simplify each constraint; drop the always-true ones. True if one was replaced."""
    simplifier = ExprSimplifier(RangeEvaluator(m, use_constraints=False), replace_points)
    replaced = False
    old = list(m.constraints.items())
    m.constraints = {}
    keep: list = []
    for e, iv in old:
        s = simplifier.simplify(e)
        if iv.contains(simplifier.range(s)):
            continue
        keep.append((e, s, iv))
    for e, s, iv in keep:
        if s != e:
            replaced = True
        m._add_constraint(s, iv)
        if m.is_known_empty:
            return True
    return replaced


def _simplify_constraint_ranges(m: IndexingMap) -> bool:
    ranges = RangeEvaluator(m, use_constraints=False)
    simplifier = ExprSimplifier(ranges, True)
    changed = False
    old = list(m.constraints.items())
    m.constraints = {}
    for e, iv in old:
        e2, iv2 = e, iv
        while True:
            step = _constraint_range_once(e2, iv2, ranges, simplifier)
            if step is None:
                break
            e2, iv2 = step
        if (e2, iv2) != (e, iv):
            changed = True
        if not ranges(e2).intersect(iv2).is_feasible:  # the expression never meets its interval
            m._reset_to_known_empty()
            return True
        m._add_constraint(e2, iv2)
        if m.is_known_empty:
            return True
    return changed


def _constraint_range_once(e: AffineExpr, iv: Interval, ranges: RangeEvaluator,
                           simplifier: ExprSimplifier) -> tuple[AffineExpr, Interval] | None:
    if not isinstance(e, Binary):
        return None
    if e.op == Kind.ADD:
        c = ranges(e.rhs)
        if c.is_point:
            return e.lhs, Interval(iv.lower - c.lower, iv.upper - c.lower)
        if iv.lower == 0:
            multiplied, g, rest = simplifier.split_by_gcd(e)
            if g != 1:
                lo = (iv.upper - ranges(rest).upper) // g
                hi = (iv.upper - ranges(rest).lower) // g
                if lo == hi:
                    return multiplied * g, iv
        return None
    k = ranges(e.rhs)
    if not k.is_point or k.lower == 0:
        return None
    k = k.lower
    if e.op == Kind.MUL:
        lo, hi = (iv.lower, iv.upper) if k > 0 else (-iv.upper, -iv.lower)
        k = abs(k)
        return e.lhs, Interval(-((-lo) // k), hi // k)
    if e.op == Kind.FLOORDIV:
        if k > 0:
            return e.lhs, Interval(iv.lower * k, (iv.upper + 1) * k - 1)
        return e.lhs, Interval((iv.upper + 1) * k + 1, iv.lower * k)
    return None


def merge_mod_constraints(m: IndexingMap) -> bool:
    """``X mod a in [r, r]`` and ``X mod b in [r, r]`` merged into ``X mod lcm in [r, r]``;
    a dim or symbol X has its bounds snapped to the residue class (negative values and
    divisors included: XLA's ``X mod b`` lies in ``[0, |b|)``)."""
    groups: dict[AffineExpr, dict[int, list[tuple[AffineExpr, int]]]] = {}
    for e, iv in m.constraints.items():
        if isinstance(e, Binary) and e.op == Kind.MOD and isinstance(e.rhs, Const) and iv.is_point:
            # XLA's mod lies in [0, |b|): a negative divisor acts as its absolute value
            groups.setdefault(e.lhs, {}).setdefault(iv.lower, []).append((e, abs(e.rhs.value)))
    changed = False
    for x, by_residue in groups.items():
        for r, items in by_residue.items():
            lcm = 1
            for _, c in items:
                lcm = lcm * c // math.gcd(lcm, c)
            if len(items) > 1:
                for e, _ in items:
                    del m.constraints[e]
                m.constraints[mod(x, Const(lcm))] = Interval(r, r)
                changed = True
            if isinstance(x, (Dim, Symbol)):
                v = m.dims[x.position] if isinstance(x, Dim) else m.symbol_variable(x.position)
                lo, hi = v.bounds.lower, v.bounds.upper
                # the first and last values of the residue class r (mod lcm) in [lo, hi]
                new_lo = lo + (r - lo) % lcm
                new_hi = hi - (hi - r) % lcm
                if (new_lo, new_hi) != (lo, hi):
                    _set_bounds(m, x, Interval(new_lo, new_hi))
                    changed = True
    return changed


def _set_bounds(m: IndexingMap, x: AffineExpr, bounds: Interval) -> None:
    if isinstance(x, Dim):
        dims = list(m.dims)
        dims[x.position] = Variable(bounds, dims[x.position].name)
        m.dims = tuple(dims)
    else:
        assert isinstance(x, Symbol)
        k = x.position
        if k < len(m.ranges):
            ranges = list(m.ranges)
            ranges[k] = Variable(bounds, ranges[k].name)
            m.ranges = tuple(ranges)
        else:
            rts = list(m.rts)
            rts[k - len(m.ranges)] = Variable(bounds, rts[k - len(m.ranges)].name)
            m.rts = tuple(rts)
    if not bounds.is_feasible:
        m._reset_to_known_empty()


def rescale_symbols(m: IndexingMap) -> tuple[IndexingMap, bool]:
    """A copy of *m* where each symbol with a constraint ``s mod c in [r, r]`` is replaced by
    ``s*c + r`` over a smaller range, the constraint gone (XLA's ``RescaleSymbols``)."""
    out = m._copy()
    if out.affine_map is None or out.is_known_empty:
        return out, False
    changed = merge_mod_constraints(out)
    done: set[int] = set()
    for e, iv in list(out.constraints.items()):
        if not (isinstance(e, Binary) and e.op == Kind.MOD and isinstance(e.lhs, Symbol)
                and isinstance(e.rhs, Const) and e.rhs.value > 0 and iv.is_point):
            continue
        k, c, r = e.lhs.position, e.rhs.value, iv.lower
        if k in done or e not in out.constraints:
            continue
        done.add(k)
        del out.constraints[e]
        syms = [Symbol(j) for j in range(out.num_symbols)]
        syms[k] = Symbol(k) * c + r
        results = tuple(replace(x, None, syms) for x in out.results)
        out.affine_map = AffineMap(out.affine_map.num_dims, out.affine_map.num_symbols, results)
        out.constraints = {replace(x, None, syms): v for x, v in out.constraints.items()}
        b = out.symbol_variable(k).bounds
        _set_bounds(out, Symbol(k), Interval(-((r - b.lower) // c), (b.upper - r) // c))  # s*c + r in the bounds
        changed = True
    return out, changed


_indexing_map._impl.simplified = simplified  # what IndexingMap.simplify and rescale_symbols call
_indexing_map._impl.rescale_symbols = rescale_symbols
