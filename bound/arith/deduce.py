"""The range of one variable that makes a comparison hold (TVM's ``arith.deduce_bound``).

The comparison is put in the form ``expr >= result``, ``expr <= result`` or
``expr == result`` with the variable in ``expr`` (it must appear exactly once). Variables of
the *relax* map are replaced by the end of their range that makes the comparison hardest.
Then the operations between the root of ``expr`` and the variable are undone one by one, each
moved onto ``result``: an addition or subtraction, a multiplication or a floor division by an
operand whose sign the *hint* map decides (a negative one turns the comparison around). The
answer is ``[result, +inf)``, ``(-inf, result]``, or the point ``result``; what the steps
cannot undo (another operation, an unknown sign, an equality a product does not divide)
gives the empty set.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from bound.arith.analyzer import Analyzer
from bound.arith.interval import NEG_INF, POS_INF, IntervalSet, eval_set
from bound.arith.linear import Linear
from schedule.ir import arith
from schedule.ir.expr import EQ, GE, GT, LE, LT, Add, Expr, FloorDiv, Mul, Sub, Var
from schedule.ir.functor import children

GREATER, LESS, EQUAL = ">=", "<=", "=="
_TURNED = {GREATER: LESS, LESS: GREATER, EQUAL: EQUAL}


def _path(target: Var, e: Expr) -> list[Expr]:
    """The nodes from *e* down to *target* (empty when *target* is not in *e*)."""
    stack: list[tuple[Expr, list[Expr]]] = [(e, [e])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        stack.extend((c, [*path, c]) for c in reversed(children(node)))
    return []


def _occurrences(target: Var, e: Expr) -> int:
    count, stack = 0, [e]
    while stack:
        node = stack.pop()
        count += node is target
        stack.extend(children(node))
    return count


def _normal_form(target: Var, cond: Expr) -> tuple[Expr, str, Expr] | None:
    """(expr, comparison, result) with *target* in expr, or None for no comparison."""
    if not isinstance(cond, (LT, LE, GT, GE, EQ)):
        return None
    left_holds = bool(_path(target, cond.a))
    if isinstance(cond, EQ):
        return (cond.a, EQUAL, cond.b) if left_holds else (cond.b, EQUAL, cond.a)
    if isinstance(cond, LT):  # a < b: a <= b - 1, or b >= a + 1
        return (cond.a, LESS, cond.b - 1) if left_holds else (cond.b, GREATER, cond.a + 1)
    if isinstance(cond, LE):
        return (cond.a, LESS, cond.b) if left_holds else (cond.b, GREATER, cond.a)
    if isinstance(cond, GT):
        return (cond.a, GREATER, cond.b + 1) if left_holds else (cond.b, LESS, cond.a - 1)
    return (cond.a, GREATER, cond.b) if left_holds else (cond.b, LESS, cond.a)


def _sign(e: Expr, hints: Mapping[Var, IntervalSet], analyzer: Analyzer) -> int:
    """1 when *e* is provably at least 0 under *hints*, -1 when at most 0, else 0."""
    if e.dtype.startswith("uint"):
        return 1
    s = eval_set(e, hints)
    if s.min_value not in (NEG_INF, POS_INF) and analyzer.can_prove(s.min_value >= 0):
        return 1
    if s.max_value not in (NEG_INF, POS_INF) and analyzer.can_prove(s.max_value <= 0):
        return -1
    return 0


def _multiple(e: Expr, of: Expr) -> int | None:
    """k when *e* is k times *of* term by term (``b * 3`` of ``b``), else None."""
    le, lo = Linear.of(e), Linear.of(of)
    if not lo.terms or set(le.terms) != set(lo.terms):
        return None
    first = next(iter(lo.terms))
    k = Fraction(le.terms[first], lo.terms[first])
    if k.denominator != 1 or le.const != k * lo.const or any(Fraction(le.terms[x], lo.terms[x]) != k
                                                              for x in lo.terms):
        return None
    return int(k)


def deduce_bound(target: Var, cond: Expr, hints: Mapping[Var, IntervalSet] | None = None,
                 relax: Mapping[Var, IntervalSet] | None = None) -> IntervalSet:
    """The values of *target* for which *cond* holds, as the module says (empty when no rule
    applies)."""
    hints, relax = dict(hints or {}), dict(relax or {})
    if not isinstance(target, Var) or not isinstance(cond, Expr):
        raise TypeError(f"deduce_bound: takes a variable and a condition, got {target!r} and {cond!r}")
    for what, given in (("hint", hints), ("relax", relax)):
        for v, s in given.items():
            if not isinstance(v, Var) or not isinstance(s, IntervalSet):
                raise TypeError(f"deduce_bound: the {what} map takes variables to IntervalSets, got {v!r}: {s!r}")
    analyzer = Analyzer()
    form = _normal_form(target, cond)
    if form is None or _occurrences(target, cond) != 1:
        return IntervalSet.empty()
    expr, op, result = form
    # the relaxed variables at their hardest ends
    a, b = eval_set(expr, relax), eval_set(result, relax)
    ends = (a.min_value, a.max_value, b.min_value, b.max_value)
    if any(x in (NEG_INF, POS_INF) for x in ends):
        return IntervalSet.empty()
    if op == EQUAL and not (analyzer.can_prove(arith.equal(b.min_value, b.max_value))
                            and analyzer.can_prove(arith.equal(a.min_value, a.max_value))):
        return IntervalSet.empty()
    expr = a.min_value if op == GREATER else a.max_value
    result = b.max_value if op == GREATER else b.min_value
    path = _path(target, expr)
    if not path:
        return IntervalSet.empty()
    for node, inner in zip(path, path[1:]):
        left = node.a is inner if hasattr(node, "a") else False
        if isinstance(node, Add):
            result = result - (node.b if left else node.a)
        elif isinstance(node, Sub):
            if left:
                result = result + node.b
            else:
                result, op = node.a - result, _TURNED[op]
        elif isinstance(node, Mul):
            operand = node.b if left else node.a
            sign = _sign(operand, hints, analyzer)
            if sign == 0:
                return IntervalSet.empty()
            if sign < 0:
                op = _TURNED[op]
            k = _multiple(result, operand)  # TVM's simplifier divides a multiple of the operand exactly
            exact = k is not None or analyzer.can_prove(arith.equal(arith.floormod(result, operand), 0))
            result = arith.const(k, result.dtype) if k is not None else arith.floordiv(result, operand)
            if not exact:
                if op == EQUAL:
                    return IntervalSet.empty()
                if op == GREATER:  # rounded up
                    result = result + 1
        elif isinstance(node, FloorDiv) and left:
            divisor = node.b
            if analyzer.can_prove(arith.equal(divisor, 0)) or op == EQUAL:
                return IntervalSet.empty()
            sign = _sign(divisor, hints, analyzer)
            if sign == 0:
                return IntervalSet.empty()
            if sign < 0:
                op, divisor, result = _TURNED[op], -divisor, -result
            result = result * divisor if op == GREATER else result * divisor + divisor - 1
            if sign < 0:
                result = result - divisor + 1
        else:
            return IntervalSet.empty()
    result = analyzer.simplify(result)
    if op == EQUAL:
        return IntervalSet(result, result)
    return IntervalSet(result, POS_INF) if op == GREATER else IntervalSet(NEG_INF, result)


__all__ = ["deduce_bound"]
