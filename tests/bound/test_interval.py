"""Interval sets: TVM's rules case by case (faithful and tight), and soundness on random expressions."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedule as te
from bound import Analyzer, IntervalSet, eval_set
from bound.arith.const_bound import _mul_bounds
from bound.arith.interval import FAITHFUL, NEG_INF, POS_INF, TIGHT, TVM_V013
from schedule.ir.evaluate import evaluate

x, y = te.var("x"), te.var("y")


def ends(s):
    return tuple(v if v is NEG_INF or v is POS_INF else evaluate(v) for v in (s.min_value, s.max_value))


def over(e, rules=FAITHFUL, **ranges):
    dom = {v: IntervalSet(te.const(lo), te.const(hi)) for v, (lo, hi) in
           ((x if k == "x" else y, r) for k, r in ranges.items())}
    return ends(eval_set(e, dom, Analyzer(), rules))


@pytest.mark.parametrize("rules", [FAITHFUL, TIGHT])
def test_linear_rules(rules):
    assert over(x + y, rules, x=(0, 3), y=(10, 12)) == (10, 15)
    assert over(x - y, rules, x=(0, 3), y=(10, 12)) == (-12, -7)
    assert over(x * 4 - 1, rules, x=(0, 3)) == (-1, 11)
    assert over(x * -2, rules, x=(1, 3)) == (-6, -2)
    assert over(te.floordiv(x, 4), rules, x=(-5, 9)) == (-2, 2)
    assert over(te.min(x, y), rules, x=(0, 9), y=(3, 5)) == (0, 5)
    assert over(te.max(x, y), rules, x=(0, 9), y=(3, 5)) == (3, 9)


def test_product_of_two_ranges_is_everything_as_in_tvm():
    assert over(x * y, x=(0, 3), y=(0, 3)) == (NEG_INF, POS_INF)


@pytest.mark.parametrize("rules", [TVM_V013, TIGHT])
def test_floormod_within_one_quotient_keeps_its_shape_from_tvm_v07(rules):
    # TVM v0.7 tightened x % 8 for x in [9, 12] from [0, 7] to [1, 4]; its tests of bounds
    # (test_bound_block, test_bound_tile_mod) expect the tight form. The document's TVM did not.
    assert over(te.floormod(x, 8), rules, x=(9, 12)) == (1, 4)
    assert over(te.floormod(x, 8), rules, x=(6, 12)) == (0, 7)
    assert over(te.floormod(x, 8), FAITHFUL, x=(9, 12)) == (0, 7)


# TVM's published interval cases (its test_arith_intset): floormod and floordiv by a constant,
# and by a variable known to lie in [1, 100]; each (expression, x's interval, expected ends).
FLOOR_CASES = [
    (te.floormod(x, 10), (-10, 10), (0, 9)),
    (te.floormod(x, 10), (3, 5), (3, 5)),
    (te.floormod(x, 10), (13, 15), (3, 5)),
    (te.floormod(x, 10), (3, 15), (0, 9)),
    (te.floormod(x, 10), (3, 11), (0, 9)),
    (te.floormod(x, 10), (1, 21), (0, 9)),
    (te.floordiv(x, 2), (-1, 10), (-1, 5)),
    (te.floordiv(x, y), (0, 10), (0, te.floordiv(10, y))),
    (te.floormod(x, y), (0, 10), (0, y - 1)),
    (te.truncmod(x, 10), (1, 10), (0, 9)),
]


@pytest.mark.parametrize("rules", [TVM_V013, TIGHT])
@pytest.mark.parametrize("case", range(len(FLOOR_CASES)))
def test_tvm_published_floor_cases(case, rules):
    e, (lo, hi), expected = FLOOR_CASES[case]
    ana = Analyzer({y: te.Range(1, 101)})
    got = eval_set(e, {x: IntervalSet(te.const(lo), te.const(hi))}, ana, rules)
    for end, want in zip((got.min_value, got.max_value), expected):
        assert ana.can_prove(te.const(0) == (end - want)) if not isinstance(want, int) else evaluate(end) == want


@pytest.mark.parametrize("rules", [TVM_V013, TIGHT])
def test_floormod_of_a_symbolic_interval_within_one_quotient(rules):
    # y in [8z + 4x, 8z + 4x + 3] with x in [0, 1]: one quotient (z), so y % 8 is [4x, 4x + 3];
    # with x in [0, 2] the quotient is z or z + 1 (one per x), and the set keeps its expression.
    z = te.var("z")
    lo = z * 8 + x * 4
    for extent, expect_tight in ((2, True), (3, False)):
        ana = Analyzer({x: te.Range(0, extent)})
        got = eval_set(te.floormod(y, 8), {y: IntervalSet(lo, lo + 3)}, ana, rules)
        if expect_tight:
            assert ana.can_prove(got.min_value == x * 4) and ana.can_prove(got.max_value == x * 4 + 3)
        else:
            q = te.floordiv(lo, 8)
            assert ana.can_prove(got.min_value == lo - q * 8) and ana.can_prove(got.max_value == lo + 3 - q * 8)


def test_if_then_else_is_everything_faithfully_and_both_branches_tightly():
    e = te.if_then_else(x > 2, x, te.const(0))
    assert over(e, FAITHFUL, x=(0, 9)) == (NEG_INF, POS_INF)
    assert over(e, TIGHT, x=(0, 9)) == (0, 9)


def test_unbounded_variables_stay_symbolic_points():
    s = eval_set(x + 1, {}, Analyzer())
    assert s.is_single_point()


def test_union_and_intersect():
    a, b = IntervalSet(te.const(0), te.const(3)), IntervalSet(te.const(5), te.const(9))
    assert ends(a.union(b)) == (0, 9)
    assert ends(a.intersect(IntervalSet(te.const(2), te.const(7)))) == (2, 3)


@pytest.mark.parametrize("a, b, expected", [
    ((None, None), (2, 2), (None, None)),
    ((0, None), (-3, -1), (None, 0)),
    ((None, None), (0, 0), (0, 0)),
    ((1, 3), (-2, 5), (-6, 15)),
    ((-4, -1), (None, 2), (-8, None)),
])
def test_constant_bounds_of_products(a, b, expected):
    assert _mul_bounds(a, b) == expected


_leaf = st.sampled_from([x, y]) | st.integers(-6, 6).map(te.const)


def _combine(children):
    ops = [lambda a, b: a + b, lambda a, b: a - b, te.min, te.max,
           lambda a, b: a * 3, lambda a, b: te.floordiv(a, 3), lambda a, b: te.floormod(a, 4)]
    return st.tuples(st.sampled_from(ops), children, children).map(lambda t: t[0](t[1], t[2]))


@settings(max_examples=150, deadline=None)
@given(st.recursive(_leaf, _combine, max_leaves=6), st.integers(-5, 5), st.integers(0, 4),
       st.integers(-5, 5), st.integers(0, 4), st.sampled_from([FAITHFUL, TIGHT]))
def test_every_value_lies_in_the_interval(e, xlo, xn, ylo, yn, rules):
    lo, hi = over(e, rules, x=(xlo, xlo + xn), y=(ylo, ylo + yn))
    for vx, vy in itertools.product(range(xlo, xlo + xn + 1), range(ylo, ylo + yn + 1)):
        v = evaluate(e, {x: vx, y: vy})
        assert (lo is NEG_INF or lo <= v) and (hi is POS_INF or v <= hi), (str(e), vx, vy, v, lo, hi)


def test_a_sum_thousands_of_terms_long_at_the_default_recursion_limit():
    """Interval and constant bounds fold a long chain of sums without recursing down it."""
    from bound.arith.const_bound import ConstBounds

    vs = [te.var(f"v{k}") for k in range(3000)]
    e = vs[0]
    for k, v in enumerate(vs[1:]):
        e = e + v * 2 if k % 2 else e - v
    # v0 + sum over odd k of 2*v - sum over even k of v: each v in [0, 1]
    plus = 1 + 2 * sum(1 for k in range(2999) if k % 2)
    minus = sum(1 for k in range(2999) if k % 2 == 0)
    dom = {v: IntervalSet(te.const(0), te.const(1)) for v in vs}
    assert over_dom(e, dom) == (-minus, plus)
    assert ConstBounds({v: (0, 1) for v in vs})(e) == (-minus, plus)


def over_dom(e, dom):
    return ends(eval_set(e, dom, Analyzer(), FAITHFUL))
