"""Systems of linear integer inequalities solved by Fourier-Motzkin elimination (TVM's
``solve_linear_inequalities``): each variable in turn gets its bounds ``coef*v >= lower``,
``coef*v <= upper`` and ``coef*v == equal`` from the inequalities that hold it (and its
range), and is eliminated from the rest by adding each inequality that bounds it from above
to each that bounds it from below. What is left, and what is not linear in the variables,
stays as relations.

Three answers, as TVM's: the bounds as conditions (:func:`as_conditions`), the system with a
range per variable (:func:`solve_to_ranges`), or a change of variables that starts each range
at 0 (:func:`solve_deskew_ranges`). Variables are given ranges from the last to the first,
so a range may depend on the variables after it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bound.arith.analyzer import Analyzer
from bound.arith.int_solver import IntConstraints, IntConstraintsTransform
from bound.arith.interval import IntervalSet, eval_set
from bound.arith.linear import Linear
from bound.arith.linear_equation import detect_linear_equation
from schedule.ir import arith
from schedule.ir.expr import EQ, GE, GT, LE, LT, NE, Expr, IntImm, Var
from schedule.ir.functor import distinct_post_order, structural_equal, substitute
from schedule.ir.itervar import Range


@dataclass
class IntGroupBounds:
    """The bounds of ``coef * v``: *lower*, *equal* and *upper* expressions (TVM's)."""

    coef: Expr
    lower: list[Expr] = field(default_factory=list)
    equal: list[Expr] = field(default_factory=list)
    upper: list[Expr] = field(default_factory=list)

    def with_range(self, r: Range) -> IntGroupBounds:
        """These bounds and those of a range of v (scaled by the coefficient)."""
        ana = Analyzer()
        if _is_int(r.extent, 1):
            return IntGroupBounds(self.coef, list(self.lower), [ana.simplify(arith.mul(r.min, self.coef)),
                                                                *self.equal], list(self.upper))
        low = ana.simplify(arith.mul(r.min, self.coef))
        high = ana.simplify(arith.mul(arith.sub(arith.add(r.min, r.extent), 1), self.coef))
        return IntGroupBounds(self.coef, [low, *self.lower], list(self.equal), [high, *self.upper])

    def substitute(self, vmap: Mapping[Var, Expr]) -> IntGroupBounds:
        def sub(e: Expr) -> Expr:
            return substitute(e, vmap) if vmap else e
        return IntGroupBounds(sub(self.coef), [sub(e) for e in self.lower], [sub(e) for e in self.equal],
                              [sub(e) for e in self.upper])

    def best_range(self, ranges: Mapping[Var, Range]) -> Range | None:
        """The tightest range of v these bounds give, over the variables of *ranges* (None
        when no pair of bounds gives one)."""
        ana = Analyzer(ranges)
        dom = {v: IntervalSet.from_range(r) for v, r in ranges.items()}
        lowers, uppers = [*self.equal, *self.lower], [*self.equal, *self.upper]
        if len(lowers) == 1 and len(uppers) == 1 and _is_int(self.coef, 1):
            low = ana.simplify(lowers[0])
            return Range.from_min_extent(low, ana.simplify(arith.sub(arith.add(uppers[0], 1), lowers[0])))
        best_low: Expr | None = None
        best_over: Expr | None = None
        for low in lowers:
            for high in uppers:
                over: Expr | None = None
                spread = eval_set(ana.simplify(arith.floordiv(arith.sub(high, low), self.coef)), dom)
                if spread.has_upper_bound():
                    over = ana.simplify(spread.max_value)
                low_div = ana.simplify(arith.floordiv(arith.sub(arith.add(low, self.coef), 1), self.coef))
                spread2 = eval_set(ana.simplify(arith.sub(arith.floordiv(high, self.coef), low_div)), dom)
                if spread2.has_upper_bound():
                    over2 = ana.simplify(spread2.max_value)
                    over = over2 if over is None or ana.can_prove(arith.lt(arith.sub(over2, over), 0)) else over
                if over is not None and (best_over is None or ana.can_prove(arith.lt(arith.sub(over, best_over), 0))):
                    best_low, best_over = low_div, over
        if best_low is None or best_over is None:
            return None
        return Range.from_min_extent(best_low, ana.simplify(arith.add(best_over, 1)))


def _is_int(e: Any, value: int) -> bool:
    return isinstance(e, IntImm) and e.value == value


def _complexity(e: Expr) -> int:
    return len(distinct_post_order(e))


def _normalized(e: Expr, ana: Analyzer) -> Expr:
    """A comparison as ``expr <= 0`` (``< `` of integers as ``<= `` one less), ``== 0`` or
    ``!= 0``; anything else as it is."""
    kinds = {EQ: EQ, NE: NE, LT: LT, LE: LE, GT: LT, GE: LE}
    kind = kinds.get(type(e))
    if kind is None:
        return e
    a, b = (e.b, e.a) if isinstance(e, (GT, GE)) else (e.a, e.b)
    zero = arith.const(0, a.dtype)
    if kind is LT and (a.dtype.startswith("int") or a.dtype.startswith("uint")):
        return _divided(LE(ana.simplify(arith.add(arith.sub(a, b), 1)), zero), ana)
    return _divided(kind(ana.simplify(arith.sub(a, b)), zero), ana)


def _divided(e: Expr, ana: Analyzer) -> Expr:
    """``g*L + c <= 0`` (L linear with integer coefficients of gcd g) as ``L - floor(-c/g)
    <= 0``, as TVM's rewrite simplifier leaves it (``2*y - 10 <= 0`` is ``y - 5 <= 0``)."""
    if not isinstance(e, LE) or not e.a.dtype.startswith("int"):
        return e
    lin = Linear.of(e.a)
    coeffs = list(lin.terms.values())
    g = math.gcd(*coeffs) if coeffs else 0
    if g <= 1:
        return e
    scaled = Linear(lin.dtype, {t: c // g for t, c in lin.terms.items()}, -((-lin.const) // g))
    return LE(ana.simplify(scaled.to_expr()), e.b)


def _add(ineqs: list[Expr], new: Expr, ana: Analyzer) -> None:
    """Add *new* to *ineqs* unless it follows from the ranges or a tighter one is there
    (dropping those it makes redundant)."""
    if ana.can_prove(new) or any(structural_equal(e, new) for e in ineqs):
        return
    if isinstance(new, LE):
        kept = []
        for old in ineqs:
            if isinstance(old, LE) and ana.can_prove(arith.le(arith.sub(new.a, old.a), 0)):
                return
            if not (isinstance(old, LE) and ana.can_prove(arith.le(arith.sub(old.a, new.a), 0))):
                kept.append(old)
        ineqs[:] = kept
    ineqs.append(new)


def _linear_in(e: Expr, v: Var) -> tuple[int, Expr] | None:
    coeffs = detect_linear_equation(e, [v])
    if not coeffs or not isinstance(coeffs[0], IntImm):
        return None
    return coeffs[0].value, coeffs[1]


def _neg(e: Expr) -> Expr:
    return arith.sub(arith.const(0, e.dtype), e)


def _tightest(pairs: Sequence[tuple[int, Expr]], lcm: int, dtype: str, ana: Analyzer, tighter: Any) -> list[Expr]:
    """The bounds ``-lcm/c * e`` of *pairs* that no other one is provably *tighter* than
    (``arith.le`` for upper bounds, ``arith.ge`` for lower ones)."""
    looser = arith.ge if tighter is arith.le else arith.le
    out: list[Expr] = []
    for c, e in pairs:
        bound = ana.simplify(arith.mul(arith.const(-lcm // c, dtype), e))
        if any(ana.can_prove(tighter(arith.sub(o, bound), 0)) for o in out):
            continue
        out = [o for o in out if not ana.can_prove(looser(arith.sub(o, bound), 0))] + [bound]
    return out


def solve(system: IntConstraints) -> tuple[dict[Var, IntGroupBounds], list[Expr]]:
    """Each variable's bounds, and the relations left over (see the module)."""
    ana = Analyzer(system.ranges)
    current: list[Expr] = []
    for rel in system.relations:
        _add(current, _normalized(ana.simplify(rel), ana), ana)
    rest: list[Expr] = []
    bounds: dict[Var, IntGroupBounds] = {}
    for v in system.variables:
        if v in bounds:
            raise ValueError(f"solve_linear_inequalities: variable {v.name} is listed twice")
        nxt: list[Expr] = []
        pos: list[tuple[int, Expr]] = []  # c*v + e <= 0 with c > 0
        neg: list[tuple[int, Expr]] = []  # c*v + e <= 0 with c < 0
        r = system.ranges.get(v)
        if r is not None:
            neg.append((-1, ana.simplify(r.min)))
            pos.append((1, _neg(ana.simplify(arith.sub(arith.add(r.min, r.extent), 1)))))
        for ineq in current:
            found = _linear_in(ineq.a, v) if isinstance(ineq, (LE, EQ)) else None
            if found is None:
                rest.append(ineq)
                continue
            c, e = found
            if c == 0:
                _add(nxt, ineq, ana)
            elif isinstance(ineq, LE):
                (pos if c > 0 else neg).append((c, e))
            elif c > 0:
                pos.append((c, e))
                neg.append((-c, _neg(e)))
            else:
                pos.append((-c, _neg(e)))
                neg.append((c, e))
        for cp, ep in pos:
            for cn, en in neg:
                g = math.gcd(cp, -cn)
                lhs = arith.sub(arith.mul(arith.const(cp // g, v.dtype), en),
                                arith.mul(arith.const(cn // g, v.dtype), ep))
                _add(nxt, _normalized(ana.simplify(LE(lhs, arith.const(0, lhs.dtype))), ana), ana)
        lcm = 1
        for c, _ in pos:
            lcm = math.lcm(lcm, c)
        for c, _ in neg:
            lcm = math.lcm(lcm, -c)
        upper = _tightest(pos, lcm, v.dtype, ana, arith.le)
        lower = _tightest(neg, lcm, v.dtype, ana, arith.ge)
        equal = []
        for high in list(upper):
            match = next((low for low in lower if structural_equal(low, high)), None)
            if match is not None:
                equal.append(match)
                lower.remove(match)
                upper.remove(high)
        equal.sort(key=_complexity)
        bounds[v] = IntGroupBounds(arith.const(lcm, v.dtype), lower, equal, upper)
        current = nxt
    others: list[Expr] = []
    for e in current:
        e = ana.simplify(e)
        if _is_int(e, 0):
            others = [arith.const(False, "bool")]
            break
        if not _is_int(e, 1):
            others.append(e)
    return bounds, others + rest


def as_conditions(variables: Sequence[Var], bounds: Mapping[Var, IntGroupBounds], relations: Sequence[Expr]
                  ) -> list[Expr]:
    """The bounds as comparisons of ``coef * v``, then the other relations."""
    out: list[Expr] = []
    for v in variables:
        b = bounds[v]
        lhs = arith.mul(b.coef, v)
        out += [arith.equal(lhs, e) for e in b.equal]
        out += [arith.ge(lhs, e) for e in b.lower]
        out += [arith.le(lhs, e) for e in b.upper]
    return out + list(relations)


def _no_solution() -> IntConstraints:
    return IntConstraints([], {}, [arith.const(False, "bool")])


def solve_to_ranges(system: IntConstraints) -> IntConstraints:
    """The system with a range for each variable it can bound, the conditions those ranges
    do not imply kept as relations."""
    bounds, others = solve(system)
    ranges: dict[Var, Range] = {}
    known = dict(system.ranges)
    for v in reversed(system.variables):
        ana = Analyzer(known)
        b = bounds[v]
        if _is_int(b.coef, 1) and b.equal:
            best: Range | None = Range.from_min_extent(b.equal[0], arith.const(1, v.dtype))
        else:
            if v in known:
                b = b.with_range(known[v])
            best = b.best_range(known)
            if best is not None and ana.can_prove(arith.le(best.extent, 0)):
                return _no_solution()
        if best is not None:
            ranges[v] = known[v] = best
    ana = Analyzer(known)
    relations = [c for c in as_conditions(system.variables, bounds, others) if not ana.can_prove(c)]
    return IntConstraints(system.variables, ranges, relations)


def solve_deskew_ranges(system: IntConstraints, analyzer: type[Analyzer] = Analyzer) -> IntConstraintsTransform:
    """The solution as new variables ``v.shifted`` whose ranges start at 0 (a variable fixed
    to one value is replaced by it); *analyzer*'s ``simplify`` writes the results."""
    bounds, others = solve(system)
    ana = analyzer(system.ranges)
    known = dict(system.ranges)
    to_new: dict[Var, Expr] = {}
    to_old: dict[Var, Expr] = {}
    new_vars: list[Var] = []
    ranges: dict[Var, Range] = {}
    for v in reversed(system.variables):
        b = bounds[v].substitute(to_new)
        if _is_int(b.coef, 1) and b.equal:
            to_new[v] = b.equal[0]
            continue
        if v in known:
            b = b.with_range(known[v])
        best = b.best_range(known)
        if best is None:
            to_new[v] = to_old[v] = v
            new_vars.append(v)
        elif _is_int(best.extent, 1):
            to_new[v] = best.min
        elif ana.can_prove(arith.le(best.extent, 0)):
            return IntConstraintsTransform(system, _no_solution(), {}, {})
        else:
            shifted = Var(f"{v.name}.shifted", v.dtype)
            to_new[v] = arith.add(shifted, best.min)
            to_old[shifted] = ana.simplify(arith.sub(v, substitute(best.min, to_old) if to_old else best.min))
            r = Range.from_min_extent(arith.const(0, v.dtype), best.extent)
            new_vars.append(shifted)
            ranges[shifted] = known[shifted] = r
            ana.bind(shifted, r)
    relations = []
    for cond in as_conditions(system.variables, bounds, others):
        new = ana.simplify(substitute(cond, to_new))
        if not _is_int(new, 1):
            relations.append(new)
    return IntConstraintsTransform(system, IntConstraints(list(reversed(new_vars)), ranges, relations), to_new,
                                   to_old)


__all__ = ["IntGroupBounds", "as_conditions", "solve", "solve_deskew_ranges", "solve_to_ranges"]
