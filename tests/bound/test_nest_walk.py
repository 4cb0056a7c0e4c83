"""Counting loop nests by weighted states (bound.report.nest_walk) and column evaluation (bound.report.vector_eval)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import schedule as te
from bound.report.nest_walk import walk
from schedule import arith
from schedule.ir.evaluate import evaluate
from schedule.ir.itervar import Range


def _r(lo, extent):
    return Range.from_min_extent(arith.const(lo) if isinstance(lo, int) else lo,
                                 arith.const(extent) if isinstance(extent, int) else extent)


@pytest.mark.parametrize("make", [
    lambda x, y: x // y, lambda x, y: x % y, lambda x, y: te.truncdiv(x, y), lambda x, y: te.truncmod(x, y),
    lambda x, y: te.floordiv(x, 3), lambda x, y: te.floormod(x, -3), lambda x, y: te.min(x, y) * 2 - y,
    lambda x, y: te.if_then_else(x < y, x + 1, y - 1), lambda x, y: te.all(x >= 0, te.any(y < 2, x == y)),
])
def test_columns_agree_with_the_scalar_evaluator_on_negative_operands(make):
    from bound.report.vector_eval import evaluate_columns

    x, y = te.var("x"), te.var("y")
    e = make(x, y)
    pairs = [(a, b) for a, b in itertools.product(range(-7, 8), repeat=2) if b != 0]
    xs, ys = (np.array(c) for c in zip(*pairs))
    got = evaluate_columns([e], {x: xs, y: ys}, len(pairs))[0]
    assert [int(v) for v in got] == [int(evaluate(e, {x: a, y: b})) for a, b in pairs]


def test_a_triangle_is_counted_without_listing_its_points():
    i, j = te.var("i"), te.var("j")
    w = walk([(i, _r(0, 1000)), (j, _r(0, i + 1))], {}, [])
    assert w.total() == 1000 * 1001 // 2 and w.size == 1


def test_states_keep_what_is_still_read_with_its_multiplicity():
    i, j = te.var("i"), te.var("j")
    w = walk([(i, _r(0, 6)), (j, _r(0, 3))], {}, [te.floormod(i + j, 2)])
    # (i + j) % 2 is all the target reads: two states, 9 iterations each
    assert w.size == 2 and sorted(w.weight.tolist()) == [9, 9]


def test_counts_beyond_int64_are_exact():
    loops = [(te.var(f"v{k}"), _r(0, 1 << 20)) for k in range(4)]
    assert walk(loops, {}, []).total() == 1 << 80


def test_named_bounds_merge_states_that_reach_the_same_value():
    # lo stands for a definition over both outer loops; the inner range reads only lo
    a, b, c = te.var("a"), te.var("b"), te.var("c")
    lo = te.var("lo")
    w = walk([(a, _r(0, 50)), (b, _r(0, 50)), (c, _r(lo, 2))], {lo: te.min(a + b, 10)}, [c])
    assert w.total() == 50 * 50 * 2
    assert w.size == 12  # c in 0..11
    brute = {}
    for x, y in itertools.product(range(50), repeat=2):
        for z in range(min(x + y, 10), min(x + y, 10) + 2):
            brute[z] = brute.get(z, 0) + 1
    assert dict(zip(w.values_of(c).tolist(), w.weight.tolist())) == brute
