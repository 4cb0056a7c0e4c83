"""deduce_bound: the range of one variable that makes a comparison hold, against enumeration
(the bound is the extreme value that satisfies, for every value of the relaxed variables) and
hand-worked cases (floor division by either sign, equalities, what it cannot undo)."""

from __future__ import annotations

import itertools

import pytest

import schedule as te
from bound.arith.deduce import deduce_bound
from bound.arith.interval import NEG_INF, POS_INF, IntervalSet
from schedule.ir import arith
from schedule.ir.evaluate import evaluate


def _value(e, env):
    return evaluate(e, env) if not isinstance(e, int) else e


@pytest.mark.parametrize("coef", [4, -4, 3])
@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_linear_conditions_by_enumeration(coef, op):
    a, b = te.var("a"), te.var("b")
    lhs = b + a * coef + 3
    cond = {"<": lhs < 17, "<=": lhs <= 17, ">": lhs > 17, ">=": lhs >= 17}[op]
    hints = {b: IntervalSet(0, 4)}
    res = deduce_bound(a, cond, hints, hints)  # b relaxed: the bound holds for every b in [0, 4]
    holds = [x for x in range(-50, 51) if all(evaluate(cond, {a: x, b: y}) for y in range(5))]
    upper = (op in "<=") == (coef > 0)
    if upper:
        assert res.min_value is NEG_INF and _value(res.max_value, {}) == max(holds)
    else:
        assert res.max_value is POS_INF and _value(res.min_value, {}) == min(holds)


def test_floor_division_by_either_sign():
    a = te.var("a")
    cases = [(arith.floordiv(a, 8) > 3, 32, None), (arith.floordiv(a, 8) <= 3, None, 31),
             (arith.floordiv(a, -8) > 3, None, -32), (arith.floordiv(a, -8) <= 3, -31, None)]
    for cond, low, high in cases:
        res = deduce_bound(a, cond)
        holds = [x for x in range(-100, 101) if evaluate(cond, {a: x})]
        assert (res.min_value is NEG_INF) == (low is None) and (res.max_value is POS_INF) == (high is None)
        if low is not None:
            assert _value(res.min_value, {}) == low == min(holds)
        if high is not None:
            assert _value(res.max_value, {}) == high == max(holds)
    assert deduce_bound(a, arith.floordiv(a, 8) == 3).is_nothing()  # a range, not a point
    assert deduce_bound(a, arith.floordiv(8, a) >= 2).is_nothing()  # the variable divides


def test_symbolic_bounds_and_relaxed_variables():
    a, b, c, d = (te.var(n) for n in "abcd")
    hints = {b: IntervalSet(2, 3), c: IntervalSet(10, 15), d: IntervalSet(-3, -1)}
    # -b*a + c - d >= 0, b negative in its hint: a <= (d - c) // -b
    res = deduce_bound(a, (-b) * a + c - d >= 0, hints)
    for bv, cv, dv in itertools.product(range(2, 4), range(10, 16), range(-3, 0)):
        top = evaluate(res.max_value, {b: bv, c: cv, d: dv})
        ok = [x for x in range(-20, 21) if -bv * x + cv - dv >= 0]
        assert top == max(ok)
    # relaxing b and d: the smallest a that works for every b and d, per c
    res = deduce_bound(a, (-b) + a * c - d >= 0, hints, {b: hints[b], d: hints[d]})
    for cv in range(10, 16):
        ok = [x for x in range(-20, 21) if all(-bv + x * cv - dv >= 0
                                               for bv, dv in itertools.product(range(2, 4), range(-3, 0)))]
        assert evaluate(res.min_value, {c: cv}) == min(ok)


def test_equalities():
    a, b = te.var("a"), te.var("b")
    point = deduce_bound(a, 5 * a == -10)
    assert _value(point.min_value, {}) == _value(point.max_value, {}) == -2
    assert deduce_bound(a, 4 * a == b, {b: IntervalSet(2, 3)}).is_nothing()
    one = deduce_bound(a, b * a == b, {b: IntervalSet(2, 3)})
    assert _value(one.max_value, {}) == 1
    sym = deduce_bound(a, a - 7 == b)
    assert evaluate(sym.min_value, {b: 5}) == 12


def test_what_cannot_be_undone_gives_nothing():
    a, b = te.var("a"), te.var("b")
    for cond in [arith.floormod(a, 16) < 10, te.min(a, 16) < 10, a + b, a * 2 - a > b, a * b > 3]:
        assert deduce_bound(a, cond, {b: IntervalSet(-1, 1)}).is_nothing()
    with pytest.raises(TypeError, match="IntervalSets"):
        deduce_bound(a, a < b, {b: (0, 4)})
    with pytest.raises(TypeError, match="a variable and a condition"):
        deduce_bound(3, a < b)
