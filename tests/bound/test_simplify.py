"""The range-aware simplifier: the indexing-analysis document's rewrites, TVM's canonical order,
and soundness on random quasi-affine expressions (checked by enumeration)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedule as te
from bound import Analyzer, simplify
from bound.arith.simplify import node_count
from schedule.ir.evaluate import evaluate

d0, d1, d2 = te.var("d0"), te.var("d1"), te.var("d2")


def test_rewrite_1_div_and_mod_of_a_small_range_vanish():
    r = {d0: (0, 6), d1: (0, 14)}
    assert str(simplify(d0 + te.floordiv(d1, 16), r)) == "d0"
    assert str(simplify(te.floormod(d1, 16), r)) == "d1"


def test_rewrite_2_digits_of_a_decimal_number():
    r = {d0: (0, 9), d1: (0, 9), d2: (0, 9)}
    e = 100 * d0 + 10 * d1 + d2
    assert str(simplify(te.floordiv(e, 100), r)) == "d0"
    assert str(simplify(te.floordiv(te.floormod(e, 100), 10), r)) == "d1"
    assert str(simplify(te.floormod(d2, 10), r)) == "d2"


def test_rewrite_3_multiples_of_the_divisor_move_out():
    r = {d0: (0, 9), d1: (0, 9), d2: (0, 9)}
    e = 16 * d0 + 4 * d1 + d2
    assert str(simplify(te.floordiv(e, 8), r)) == "((d0*2) + floordiv(((d1*4) + d2), 8))"
    assert str(simplify(te.floormod(e, 8), r)) == "floormod(((d1*4) + d2), 8)"


def test_rewrite_4_negated_division():
    r = {d0: (0, 9), d1: (0, 10)}
    assert str(simplify(-te.floordiv(-11 * d0 - d1 + 109, 11) + 9, r)) == "d0"


def test_div_and_mod_of_a_split_index_recombine():
    o, i = te.var("o"), te.var("i")
    x = o * 4 + i
    assert str(simplify(te.floordiv(x, 4) * 4 + te.floormod(x, 4), {o: (0, 3), i: (0, 3)})) == "((o*4) + i)"
    assert str(simplify(o - te.floordiv(o, 4) * 4)) == "floormod(o, 4)"


@pytest.mark.parametrize(("build", "text"), [
    (lambda x, y: y + x * 8, "((x*8) + y)"),
    (lambda x, y: x + y - 1, "((x + y) - 1)"),
    (lambda x, y: 3 - x * 2 + y, "((y + 3) - (x*2))"),
    (lambda x, y: (x + 1) * 4 - x * 4, "4"),
    (lambda x, y: te.min(x + 3, x + 5), "(x + 3)"),
    (lambda x, y: te.max(y, y), "y"),
    (lambda x, y: te.floordiv(x * 6 + 9, 18), "floordiv(((x*2) + 3), 6)"),
    (lambda x, y: te.floordiv(te.floordiv(x, 2), 3), "floordiv(x, 6)"),
])
def test_sums_come_out_in_tvms_canonical_order(build, text):
    x, y = te.var("x"), te.var("y")
    assert str(simplify(build(x, y))) == text


def test_comparisons_decided_by_ranges():
    x = te.var("x")
    assert str(simplify(x < 8, {x: (0, 7)})) == "(bool)1"
    assert str(simplify(x * 4 + 3 >= 40, {x: (0, 9)})) == "(bool)0"
    assert str(simplify(x < 8, {x: (0, 8)})) == "(x < 8)"


def test_a_range_of_extent_one_substitutes_its_minimum():
    x, dj = te.var("x"), te.var("dj")
    assert str(simplify(x + dj * 2, {x: te.Range.from_min_extent(dj, 1)})) == "(dj*3)"


def test_analyzer_proves_under_bound_ranges():
    n, i = te.var("n"), te.var("i")
    ana = Analyzer({i: te.Range(0, 16)})
    assert ana.can_prove(i < 16)
    assert not ana.can_prove(i < 15)
    assert ana.can_prove(te.floormod(n * 8, 8) == 0)
    assert not ana.can_prove(te.floormod(n, 8) == 0)


# --------------------------------------------------------------------------- soundness

VARS = [te.var("a"), te.var("b"), te.var("c")]


@st.composite
def quasi_affine(draw, depth=3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.one_of(st.sampled_from(VARS), st.integers(-7, 12).map(te.const)))
    kind = draw(st.sampled_from(["add", "sub", "mul", "div", "mod", "min", "max"]))
    a = draw(quasi_affine(depth - 1))
    if kind in ("add", "sub", "min", "max"):
        b = draw(quasi_affine(depth - 1))
        return {"add": lambda: a + b, "sub": lambda: a - b, "min": lambda: te.min(a, b),
                "max": lambda: te.max(a, b)}[kind]()
    k = draw(st.integers(1, 9))
    build = {"mul": lambda: a * (k - 4), "div": lambda: te.floordiv(a, k), "mod": lambda: te.floormod(a, k)}
    return build[kind]()


@st.composite
def box(draw):
    bounds = {}
    for v in VARS:
        lo = draw(st.integers(-6, 6))
        bounds[v] = (lo, lo + draw(st.integers(0, 5)))
    return bounds


@settings(max_examples=400, deadline=None)
@given(quasi_affine(), box())
def test_simplify_never_changes_a_value_on_the_box(e, bounds):
    out = simplify(e, bounds)
    for point in itertools.product(*(range(lo, hi + 1) for lo, hi in bounds.values())):
        env = dict(zip(VARS, point))
        assert evaluate(out, env) == evaluate(e, env), f"{e} -> {out} at {env}"
    assert node_count(out) <= node_count(e)


def test_a_long_sum_is_flattened_once_not_once_per_partial_sum():
    """The partial sums inside a chain of additions are not simplified one by one: doing so
    made a sum of d terms cost d^2 and faithful bounds of deep compute_at nests N^4."""
    from bound.arith import linear

    vs = [te.var(f"v{k}") for k in range(400)]
    e = vs[0]
    for v in vs[1:]:
        e = e + v * 4
    calls = []
    original = linear.Linear.of

    def counted(x):
        calls.append(x)
        return original(x)

    linear.Linear.of = staticmethod(counted)
    try:
        out = simplify(e - 1, {v: (0, 9) for v in vs})
    finally:
        linear.Linear.of = staticmethod(original)
    flat = original(out)  # too deep for evaluate(): compare the sums term by term
    assert flat.const == -1 and flat.terms == {v: 4 if k else 1 for k, v in enumerate(vs)}
    terms = sum(node_count(x) for x in calls)
    assert terms < 20 * node_count(e), terms
