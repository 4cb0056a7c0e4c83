"""Modular sets: hand cases (TVM's rules), every claimed residue checked by enumeration on
random expressions, constraint scopes and bindings to expressions."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedule as te
from bound import Analyzer
from bound.arith.modular import EVERYTHING, ModularSet
from schedule.ir.evaluate import evaluate

x, y = te.var("x"), te.var("y")


@pytest.mark.parametrize("expr, expected", [
    (x * 6 + y * 4, (2, 0)),
    ((x * 4 + 2) * (y * 6 + 1), (4, 2)),
    (te.floormod(x * 128 + y * 4, 256), (4, 0)),
    (te.floordiv(x * 4 + 2, 2), (2, 1)),
    (te.truncdiv(x * 4 + 2, 2), (1, 0)),  # x may be negative: truncation rounds the other way
    ((x * 4 + 2) >> 1, (2, 1)),
    (te.truncmod(x * 4 + 1, 4), (1, 0)),
    (te.truncmod(x * 4, 4), (4, 0)),
    (te.floormod(x * 4 + 3, 8), (4, 3)),
    (te.min(x * 3, y * 9), (3, 0)),
    (te.max(x * 3 + 1, y * 9 + 4), (3, 1)),
    (te.Select(x > 0, x * 3 + 1, y * 9 + 2), (1, 0)),
    ((x * 12 + 1) - (y * 21 + 2), (3, 2)),
    ((x * 16 + y * 4) & 31, (4, 0)),
    ((x * 16 + y * 4) & 17, (1, 0)),
    (x * 12 + te.min(y * 21, 2), (1, 0)),
])
def test_tvm_rules_by_hand(expr, expected):
    m = Analyzer().modular_set(expr)
    assert (m.coeff, m.base) == expected


def test_a_non_negative_dividend_divides_either_way():
    ana = Analyzer({x: te.Range(0, 101)})
    assert ana.modular_set(te.truncdiv(x * 4 + 2, 2)) == ModularSet(2, 1)
    assert ana.modular_set(te.truncmod(x * 4 + 3, 2)) == ModularSet(2, 1)


def test_constraints_combine_and_end_with_their_scope():
    ana = Analyzer()
    with ana.constraint_scope(te.truncmod(x, 4) == 1):
        with ana.constraint_scope(te.floormod(x, 3) == 1):
            assert ana.modular_set(x) == ModularSet(12, 1)
        assert ana.modular_set(x + 2) == ModularSet(4, 3)
    assert ana.modular_set(x) == EVERYTHING
    with ana.constraint_scope(te.all(x % 3 == 2, x % 5 == 3, x % 7 == 2)):
        assert ana.modular_set(x) == ModularSet(105, 23)


def test_constraint_scope_bounds_and_facts():
    ana = Analyzer()
    with ana.constraint_scope(te.all(x >= 0, 10 > x, x < y)):
        assert ana.const_bound(x) == (0, 9)
        assert ana.simplify(te.floordiv(x, 16)).value == 0
        assert ana.can_prove(x < y)
    assert ana.const_bound(x) == (-2**31, 2**31 - 1) and not ana.can_prove(x < y)


def test_a_variable_bound_to_an_expression():
    ana = Analyzer()
    z = te.var("z", "int64")
    w = te.var("w", "int64")
    ana.bind(w, z * 4 + 1)
    assert ana.modular_set(1 - w) == ModularSet(4, 0)
    assert ana.can_prove(te.floormod(w, 4) == 1)


def test_intersect_finds_no_common_value():
    assert ModularSet(4, 1).intersect(ModularSet(2, 0)) is None
    assert ModularSet(0, 5).intersect(ModularSet(3, 2)) == ModularSet(0, 5)
    assert ModularSet(0, 5).intersect(ModularSet(3, 1)) is None


_OPS = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, te.floordiv, te.floormod,
        te.truncdiv, te.truncmod, te.min, te.max]


@st.composite
def _exprs(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from([x, y, x * 4 + 2, y * 6 + 3, te.const(draw(st.integers(-9, 9)))]))
    op = draw(st.sampled_from(_OPS))
    a = draw(_exprs(depth=depth - 1))
    if op in (te.floordiv, te.floormod, te.truncdiv, te.truncmod):
        return op(a, te.const(draw(st.sampled_from([-4, -3, 2, 3, 4, 8]))))
    return op(a, draw(_exprs(depth=depth - 1)))


@settings(max_examples=300, deadline=None)
@given(_exprs(), st.booleans())
def test_every_value_lies_in_the_claimed_set(e, nonneg):
    ana = Analyzer({x: te.Range(0, 9), y: te.Range(0, 7)} if nonneg else {})
    m = ana.modular_set(e)
    for vx, vy in itertools.product(range(-8 * (not nonneg), 9), range(-6 * (not nonneg), 7)):
        v = evaluate(e, {x: vx, y: vy})
        assert (v == m.base) if m.coeff == 0 else (v - m.base) % m.coeff == 0, (e, vx, vy, m)
