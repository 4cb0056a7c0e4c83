"""Systems of integer constraints and their solution by the Smith normal form (TVM's
``IntConstraints``, ``IntConstraintsTransform`` and ``solve_linear_equations``).

The equations ``A x = y`` with integer coefficients are diagonalized, ``S = U A V``, by row
operations (applied to the right-hand side ``y``) and column operations (applied to ``V``
and to the variables ``V^-1 x``). Each nonzero diagonal element fixes one new unknown
(a solution exists only where it divides its right-hand side); each zero one leaves a free
variable ``n<k>``. The original variables are then ``V`` times the new unknowns; their
ranges become relations over the free variables, whose own ranges come from the intervals of
what they stand for. Relations the solver cannot read as linear equations with integer
coefficients are kept, rewritten over the new variables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bound.arith.analyzer import Analyzer
from bound.arith.interval import IntervalSet, eval_set
from bound.arith.linear_equation import detect_linear_equation
from schedule.ir import arith
from schedule.ir.expr import EQ, Expr, IntImm, Var
from schedule.ir.functor import substitute
from schedule.ir.itervar import Range


class IntConstraints:
    """Integer *variables*, the *ranges* of some of them (and of outer variables), and
    *relations* (boolean expressions) they satisfy."""

    def __init__(self, variables: Sequence[Var] = (), ranges: Mapping[Var, Range] | None = None,
                 relations: Sequence[Any] = ()) -> None:
        if not all(isinstance(v, Var) for v in variables):
            raise TypeError(f"IntConstraints: variables are Vars, got {list(variables)!r}")
        self.variables = list(variables)
        self.ranges = dict(ranges or {})
        for v, r in self.ranges.items():
            if not isinstance(v, Var) or not isinstance(r, Range):
                raise TypeError(f"IntConstraints: ranges map a Var to a Range, got {v!r}: {r!r}")
        self.relations = [arith.convert(r) for r in relations]
        for r in self.relations:
            if r.dtype != "bool":
                raise TypeError(f"IntConstraints: relations are conditions (x + y <= 4, x == 2*y ...), got {r} of "
                                f"type {r.dtype}")

    def __repr__(self) -> str:
        return f"IntConstraints({self.variables}, {self.ranges}, {self.relations})"


class IntConstraintsTransform:
    """A change of variables from the system *src* to the system *dst*: *src_to_dst* gives
    each variable of *src* over those of *dst*, *dst_to_src* the reverse."""

    def __init__(self, src: IntConstraints, dst: IntConstraints, src_to_dst: Mapping[Var, Expr],
                 dst_to_src: Mapping[Var, Expr]) -> None:
        self.src, self.dst = src, dst
        self.src_to_dst, self.dst_to_src = dict(src_to_dst), dict(dst_to_src)

    def __repr__(self) -> str:
        return f"IntConstraintsTransform({self.src} -> {self.dst}, {self.src_to_dst}, {self.dst_to_src})"


def extended_gcd(a: int, b: int) -> tuple[int, int, int]:
    """``(g, x, y)`` with ``g = gcd(a, b) = a*x + b*y``, g of the sign TVM's gives."""
    old_r, r, old_s, s, old_t, t = a, b, 1, 0, 0, 1
    while r != 0:
        q = old_r // r if (old_r >= 0) == (r >= 0) else -(abs(old_r) // abs(r))
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
        old_t, t = t, old_t - q * t
    if old_r < 0:
        old_r, old_s, old_t = -old_r, -old_s, -old_t
    return old_r, old_s, old_t


def _combine(m: int, n: int) -> tuple[int, int, int]:
    """``(g, a, b)`` for zeroing *n* against the pivot *m*: Bezout's numbers, or a pivot that
    already divides *n* kept as it is."""
    if n % m != 0:
        return extended_gcd(m, n)
    return m, 1, 0


def smith_diagonalize(S: list[list[int]], V: list[list[int]], x: list[Expr], y: list[Expr]) -> None:
    """Diagonalize *S* in place: row operations also act on *y*, column operations on *V*
    and (inverted) on *x*."""
    if not S or not V:
        return
    m, n = len(S), len(S[0])
    index = 0
    while index < min(m, n):
        best = index
        for i in range(index, m):
            if S[i][index] != 0 and (S[best][index] == 0 or abs(S[i][index]) < abs(S[best][index])):
                best = i
        S[index], S[best] = S[best], S[index]
        y[index], y[best] = y[best], y[index]
        if S[index][index] == 0:
            for j in range(index + 1, n):
                if S[index][j] != 0:
                    for row in S[index:]:
                        row[index], row[j] = row[j], row[index]
                    x[index], x[j] = x[j], x[index]
                    for row in V:
                        row[index], row[j] = row[j], row[index]
                    break
        if S[index][index] == 0:
            index += 1
            continue
        for i in range(index + 1, m):
            if S[i][index] == 0:
                continue
            g, a, b = _combine(S[index][index], S[i][index])
            m_g, n_g = S[index][index] // g, S[i][index] // g
            for j in range(index, n):
                S[index][j], S[i][j] = a * S[index][j] + b * S[i][j], n_g * S[index][j] - m_g * S[i][j]
            y[index], y[i] = (arith.add(arith.mul(a, y[index]), arith.mul(b, y[i])),
                              arith.sub(arith.mul(n_g, y[index]), arith.mul(m_g, y[i])))
        changed = False
        for j in range(index + 1, n):
            if S[index][j] == 0:
                continue
            changed = changed or S[index][j] % S[index][index] != 0
            g, a, b = _combine(S[index][index], S[index][j])
            m_g, n_g = S[index][index] // g, S[index][j] // g
            for row in S[index:]:
                row[index], row[j] = a * row[index] + b * row[j], n_g * row[index] - m_g * row[j]
            for row in V:
                row[index], row[j] = a * row[index] + b * row[j], n_g * row[index] - m_g * row[j]
            x[index], x[j] = (arith.add(arith.mul(m_g, x[index]), arith.mul(n_g, x[j])),
                              arith.sub(arith.mul(b, x[index]), arith.mul(a, x[j])))
        if not changed:  # a column operation may have refilled the column: the same index again
            index += 1


def _linear_row(equation: Expr, variables: Sequence[Var], ana: Analyzer) -> tuple[list[int], Expr] | None:
    """The integer coefficients of an equation ``a == b`` over *variables* and its right-hand
    side, or None."""
    if not isinstance(equation, EQ):
        return None
    coeffs = detect_linear_equation(ana.simplify(arith.sub(equation.a, equation.b)), variables)
    if not coeffs or not all(isinstance(c, IntImm) for c in coeffs[:-1]):
        return None
    return [c.value for c in coeffs[:-1]], arith.sub(arith.const(0, coeffs[-1].dtype), coeffs[-1])


def _is_const(e: Expr, value: int) -> bool:
    return isinstance(e, IntImm) and e.value == value


def infer_ranges(new_to_old: Mapping[Var, Expr], old_vars: Sequence[Var],
                 old_ranges: Mapping[Var, Range], analyzer: type[Analyzer] = Analyzer) -> dict[Var, Range]:
    """The ranges of the outer variables of *old_ranges*, and of each new variable, from the
    interval of what it stands for."""
    out = {v: r for v, r in old_ranges.items() if v not in old_vars}
    dom = {v: IntervalSet.from_range(r) for v, r in old_ranges.items()}
    for v, e in new_to_old.items():
        s = eval_set(e, dom)
        if s.has_lower_bound() and s.has_upper_bound():
            out[v] = Range.from_min_extent(s.min_value, analyzer().simplify(
                arith.add(arith.sub(s.max_value, s.min_value), 1)))
    return out


def _no_solution(system: IntConstraints) -> IntConstraintsTransform:
    return IntConstraintsTransform(system, IntConstraints([], {}, [arith.const(False, "bool")]), {}, {})


def solve_linear_equations(system: IntConstraints, analyzer: type[Analyzer] = Analyzer) -> IntConstraintsTransform:
    """The solution of *system*'s linear equations as a change of variables (see the module);
    *analyzer* is the class whose ``simplify`` writes the results (another gives other forms)."""
    variables = system.variables
    ana = analyzer(system.ranges)
    n = len(variables)
    V = [[int(i == j) for j in range(n)] for i in range(n)]
    x: list[Expr] = list(variables)
    S: list[list[int]] = []
    y: list[Expr] = []
    rest: list[Expr] = []
    for equation in system.relations:
        row = _linear_row(equation, variables, ana)
        if row is None or not row[0]:
            rest.append(equation)
            continue
        S.append(row[0])
        y.append(row[1])
    smith_diagonalize(S, V, x, y)
    y = [ana.simplify(e) for e in y]
    relations: list[Expr] = []
    for j, rhs in enumerate(y):
        if j >= n or S[j][j] == 0:
            cond = arith.equal(rhs, 0)
        else:
            cond = arith.equal(arith.floormod(rhs, abs(S[j][j])), 0)
        cond = ana.simplify(cond)
        if _is_const(cond, 0):
            return _no_solution(system)
        if not _is_const(cond, 1):
            relations.append(cond)
    solution: list[Expr] = []
    new_vars: list[Var] = []
    new_to_old: dict[Var, Expr] = {}
    for j in range(n):
        if j >= len(S) or S[j][j] == 0:
            to_old = ana.simplify(x[j])
            name = f"n{len(new_vars)}" + (f"_{to_old.name}" if isinstance(to_old, Var) else "")
            v = Var(name, x[j].dtype)
            solution.append(v)
            new_vars.append(v)
            new_to_old[v] = to_old
        elif S[j][j] >= 0:
            solution.append(ana.simplify(arith.floordiv(y[j], S[j][j])))
        else:
            solution.append(ana.simplify(arith.floordiv(arith.sub(0, y[j]), -S[j][j])))
    old_to_new: dict[Var, Expr] = {}
    for i, v in enumerate(variables):
        e: Expr = arith.const(0, v.dtype)
        for j in range(n):
            e = arith.add(e, arith.mul(arith.const(V[i][j], v.dtype), solution[j]))
        old_to_new[v] = ana.simplify(e)
    ranges = infer_ranges(new_to_old, variables, system.ranges, analyzer)
    ana_new = analyzer(ranges)
    for v in variables:
        r = system.ranges.get(v)
        if r is None:
            continue
        for cond in (arith.le(r.min, old_to_new[v]), arith.lt(old_to_new[v], arith.add(r.min, r.extent))):
            cond = ana_new.simplify(cond)
            if not _is_const(cond, 1):
                relations.append(cond)
    relations += [substitute(cond, old_to_new) for cond in rest]
    return IntConstraintsTransform(system, IntConstraints(new_vars, ranges, relations), old_to_new, new_to_old)


__all__ = ["IntConstraints", "IntConstraintsTransform", "extended_gcd", "infer_ranges", "smith_diagonalize",
           "solve_linear_equations"]
