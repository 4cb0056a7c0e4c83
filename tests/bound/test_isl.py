"""The isl bridge: expressions to isl and back, and min/max recognised in piecewise results."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedule as te
from bound.errors import NonAffineError
from bound.isl import Builder, IslNames, pw_aff_to_expr
from schedule.ir.evaluate import evaluate
from schedule.ir.expr import Max, Min

x, y = te.var("x"), te.var("y")


def builder(names):
    return Builder(names, [], [names[x], names[y]])


_leaf = st.sampled_from([x, y]) | st.integers(-6, 6).map(te.const)


def _combine(children):
    ops = [lambda a, b: a + b, lambda a, b: a - b, te.min, te.max, lambda a, b: a * -2,
           lambda a, b: te.floordiv(a, 3), lambda a, b: te.floormod(a, 4),
           lambda a, b: te.if_then_else(a < b, a, b + 1)]
    return st.tuples(st.sampled_from(ops), children, children).map(lambda t: t[0](t[1], t[2]))


@settings(max_examples=150, deadline=None)
@given(st.recursive(_leaf, _combine, max_leaves=6))
def test_round_trip_keeps_every_value(e):
    names = IslNames()
    try:
        back = pw_aff_to_expr(builder(names).pw_aff(e), names)
    except NonAffineError:
        assert "tvm_if_then_else" in str(e) or "if_then_else" in str(e)
        return
    for vx, vy in itertools.product(range(-6, 7), repeat=2):
        assert evaluate(back, {x: vx, y: vy}) == evaluate(e, {x: vx, y: vy}), (str(e), str(back))


def test_products_of_variables_are_not_affine():
    with pytest.raises(NonAffineError):
        builder(IslNames()).pw_aff(x * y)


def test_min_and_max_of_pieces_come_back_as_min_and_max():
    names = IslNames()
    b = builder(names)
    low = pw_aff_to_expr(b.pw_aff(te.min(x, y + 2)), names)
    high = pw_aff_to_expr(b.pw_aff(te.max(te.max(x, y), te.const(0))), names)
    assert isinstance(low, Min) and isinstance(high, Max)
    for vx, vy in itertools.product(range(-4, 5), repeat=2):
        assert evaluate(low, {x: vx, y: vy}) == min(vx, vy + 2)
        assert evaluate(high, {x: vx, y: vy}) == max(vx, vy, 0)


def test_parametric_bounds_of_a_split_tail():
    # i in [16*o, 16*o + 15] and i < 20: the blocks of 20 split by 16 hold 16, then 4 elements.
    o, i = te.var("o"), te.var("i")
    names = IslNames()
    b = Builder(names, [names[i]], [names[o]])
    region = b.where([o >= 0, o <= 1, i >= o * 16, i <= o * 16 + 15, i < 20])
    (dim,) = region.box()
    sizes = [evaluate(dim.max_value, {o: k}) - evaluate(dim.min_value, {o: k}) + 1 for k in (0, 1)]
    assert sizes == [16, 4]
    assert isinstance(dim.max_value, Min)
