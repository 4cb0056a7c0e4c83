"""``Analyzer.rewrite_simplify`` as TVM's: the forms its rules give (cases worked by hand from
the rules), and, on random expressions, the same value as the input at every point of the
known ranges."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tebound.tvm as tvm
from schedule.ir.evaluate import evaluate
from schedule.ir.functor import structural_equal
from tebound.tvm import te, tir

Bound = tvm.arith.ConstIntBound
A, B, C = te.var("a"), te.var("b"), te.var("c")


def rewrite(e, constraint=None):
    ana = tvm.arith.Analyzer()
    if constraint is None:
        return ana.rewrite_simplify(e)
    with ana.constraint_scope(constraint):
        return ana.rewrite_simplify(e)


def same(got, want):
    return structural_equal(got, tvm.runtime.convert(want))


@pytest.mark.parametrize("before, after", [
    ((A + 7) + 5, A + 12),
    (A * 3 - A, A * 2),                                   # x*y - x -> x*(y - 1), folded
    (B - (A + B), 0 - A),
    (te.floordiv(A, 4) * 4 + te.floormod(A, 4), A),
    (te.min(A, B) - te.min(B, A), 0),
    (te.max(A - 3, B) + 3, te.max(A, B + 3)),
    ((A + 2) * 4, A * 4 + 8),
    ((A - B) * (-4), (B - A) * 4),
    (te.floormod(A * 6 + 4, 3), 1),                       # 6a + 4 is 1 mod 3
    (te.floordiv(A * 8 + 3, 4), A * 2),                  # the residue 3 // 4 is the constant 0
    (A + 1 + B + 2, A + B + 3),
    (A * 4 - te.floordiv(A, 2) * 8, te.floormod(A, 2) * 4),
])
def test_index_rules_give_tvms_forms(before, after):
    assert same(rewrite(before), after), rewrite(before)


@pytest.mark.parametrize("before, after", [
    (A - 1 < B, A <= B),
    (A + 4 < B + 9, A < B + 5),
    (A * 3 >= 7, tir.LE(3, A)),                           # a*3 < 7 -> a < 3, negated
    (A * (-2) <= 5, tir.LE(-2, A)),
    (te.floordiv(A, 4) < 2, A < 8),
    (te.min(A, 20) < 12, A < 12),
    ((A - 7).equal(0), A.equal(7)),
    ((A * B).equal(0), tir.Or(A.equal(0), B.equal(0))),
    (tir.And(A < 3, 5 < A), tir.const(False, "bool")),
    (tir.Or(A <= 3, 4 <= A), tir.const(True, "bool")),
    (tir.all(te.floordiv(A, 6) == 2, te.floormod(A, 6) == 5), A.equal(17)),
    (tir.Not(tir.And(A < B, B < C)), tir.Or(B <= A, C <= B)),
])
def test_comparison_and_logic_rules(before, after):
    assert same(rewrite(before), after), rewrite(before)


def test_constraints_prove_and_literal_constraints_decide():
    assert same(rewrite(te.truncdiv(A * 6 + 5, 3), A >= 0), A * 2 + 1)
    assert same(rewrite(te.truncdiv(A * 6 + 5, 3)), te.truncdiv(A * 6 + 5, 3))  # a may be negative
    assert same(rewrite(A + B <= 12, tir.all(A <= 4, B <= 8)), True)
    assert same(rewrite(B < A, B < A), True)
    assert same(rewrite(A <= B, B < A), False)


def test_vectors_lets_selects_and_calls():
    assert same(rewrite(tir.Ramp(A, 2, 4) * 3), tir.Ramp(A * 3, 6, 4))
    assert same(rewrite(tir.Ramp(A, 1, 4) - tir.Broadcast(B, 4)), tir.Ramp(A - B, 1, 4))
    assert same(rewrite(te.floordiv(tir.Ramp(A * 16, 1, 4), tir.Broadcast(8, 4))), tir.Broadcast(A * 2, 4))
    assert same(rewrite(te.floormod(tir.Ramp(A * 16 + 2, 1, 4), tir.Broadcast(8, 4))), tir.Ramp(2, 1, 4))
    v = te.var("v")
    assert same(rewrite(tir.Let(v, 3, v * v) + 1), 10)
    assert same(rewrite(tir.Select(A < 2, B, B)), B)
    assert same(rewrite(tir.Select(A < 0, B, 2) + tir.Select(A < 0, 3, C)), tir.Select(A < 0, B + 3, 2 + C))  # no rule moves the 2
    nested = tir.if_then_else(A < 9, tir.if_then_else(A > 2, 5, 0), 0)
    assert same(rewrite(nested), tir.if_then_else(tir.And(A < 9, tir.LT(2, A)), 5, 0))
    assert same(rewrite(tir.Cast("float32", A - A)), tir.const(0, "float32"))


def test_a_zero_divisor_is_refused_as_tvm_refuses_it():
    with pytest.raises(tvm.error.TVMError, match="division by zero"):
        rewrite(tir.FloorDiv(tir.Ramp(0, 1, 4), tir.Broadcast(0, 4)))


_OPS = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, te.floordiv, te.floormod,
        te.truncdiv, te.truncmod, te.min, te.max]
_CMP = [lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: a > b, lambda a, b: a >= b,
        lambda a, b: a.equal(b), lambda a, b: tir.NE(a, b)]


@st.composite
def _index(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from([A, B, te.const(draw(st.integers(-9, 9)))]))
    op = draw(st.sampled_from(_OPS))
    a = draw(_index(depth=depth - 1))
    if op in (te.floordiv, te.floormod, te.truncdiv, te.truncmod):
        return op(a, te.const(draw(st.sampled_from([-4, -3, 2, 3, 8]))))
    return op(a, draw(_index(depth=depth - 1)))


@st.composite
def _condition(draw, depth=2):
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(_CMP))(draw(_index(depth=2)), draw(_index(depth=2)))
    a, b = draw(_condition(depth=depth - 1)), draw(_condition(depth=depth - 1))
    return draw(st.sampled_from([tir.And, tir.Or, lambda p, q: tir.Not(p)]))(a, b)


def _agrees_everywhere(e, ranged):
    ana = tvm.arith.Analyzer()
    for var, (lo, hi) in ranged.items():
        ana.update(var, Bound(lo, hi))
    out = ana.rewrite_simplify(e)
    for point in itertools.product(*(range(lo, hi + 1) for lo, hi in ranged.values())):
        env = dict(zip(ranged, point))
        assert evaluate(out, env) == evaluate(e, env), (e, out, env)


@settings(max_examples=250, deadline=None)
@given(_index())
def test_a_random_index_expression_keeps_its_value(e):
    _agrees_everywhere(e, {A: (-6, 7), B: (-3, 5)})


@settings(max_examples=250, deadline=None)
@given(_condition())
def test_a_random_condition_keeps_its_truth(e):
    _agrees_everywhere(e, {A: (-6, 7), B: (0, 5)})
