"""``Analyzer.canonical_simplify`` as TVM's: sums of scaled terms in TVM's order (cases worked
by hand from its algorithm), casts pushed inside sums, common factors cancelled, reduction
combiners pruned; on random expressions, the same value as the input everywhere."""

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
A, B = te.var("a"), te.var("b")


def canonical(e, bounds=None):
    ana = tvm.arith.Analyzer()
    for var, (lo, hi) in (bounds or {}).items():
        ana.update(var, Bound(lo, hi))
    return ana.canonical_simplify(e)


@pytest.mark.parametrize("before, after", [
    ((A * 2 + B) * 3 + A, A * 7 + B * 3),                 # terms by scale, largest first
    (A * 5 - A * 7 + 2, 2 - A * 2),                       # positive terms, the constant, then the rest
    (te.floordiv(A * 6 + B * 4, 2), A * 3 + B * 2),
    (te.floormod(A * 6 + B * 4 + 1, 2), 1),
    (te.truncdiv(A, 4) * 4 + te.truncmod(A, 4), A),
    (te.floormod(A * 4, 12), te.floormod(A, 3) * 4),
    (te.floordiv(A * B * 6, B * 4), te.floordiv(A * 3, 2)),
    (te.floormod(A * B * 6, B * 4), te.floormod(A * 3, 2) * (B * 2)),
    (te.floordiv(A + 3, 1) - A, 3),
])
def test_sums_and_splits_in_tvms_order(before, after):
    got = canonical(before)
    assert structural_equal(got, tvm.runtime.convert(after)), got


def test_bounds_let_a_division_split_and_a_cast_go_inside():
    assert structural_equal(canonical(te.truncdiv(A * 8 + B, 4), {A: (0, 9), B: (0, 3)}), A * 2)
    assert structural_equal(canonical(te.truncdiv(A * 8 + B, 4)), te.truncdiv(A * 8 + B, 4))  # a, b may be < 0
    i, j = te.var("i"), te.var("j")
    e = tir.Cast("int64", i * 2 + j) - tir.Cast("int64", i) * 2   # widening: always safe
    assert structural_equal(canonical(e), tir.Cast("int64", j))


def test_a_reduction_keeps_only_the_values_its_result_needs():
    k = te.reduce_axis((0, 8), name="k")
    X = te.placeholder((8,), name="X")
    pair = te.comm_reducer(lambda p, q: (p[0] + q[0], p[1] * q[1]),
                           lambda t0, t1: (tvm.tir.const(0, t0), tvm.tir.const(1, t1)))
    first = canonical(pair((X[k], X[7 - k]), k)[0])
    assert len(first.source) == 1 and structural_equal(first.source[0], X[k])
    second = canonical(pair((X[k], X[7 - k]), k)[1])
    assert len(second.source) == 1 and second.value_index == 0
    assert structural_equal(canonical(te.sum(X[2], [])), X[2])
    assert structural_equal(canonical(te.sum(te.truncdiv(k, 8), k)), te.sum(tir.const(0, "int32"), k))


_OPS = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, te.floordiv, te.floormod,
        te.truncdiv, te.truncmod, te.min, te.max]


@st.composite
def _index(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from([A, B, te.const(draw(st.integers(-9, 9)))]))
    op = draw(st.sampled_from(_OPS))
    a = draw(_index(depth=depth - 1))
    if op in (te.floordiv, te.floormod, te.truncdiv, te.truncmod):
        return op(a, te.const(draw(st.sampled_from([-4, -3, 2, 3, 8]))))
    return op(a, draw(_index(depth=depth - 1)))


@settings(max_examples=300, deadline=None)
@given(_index())
def test_a_random_index_expression_keeps_its_value(e):
    ranges = {A: (-6, 7), B: (0, 5)}
    out = canonical(e, ranges)
    for point in itertools.product(*(range(lo, hi + 1) for lo, hi in ranges.values())):
        env = dict(zip(ranges, point))
        assert evaluate(out, env) == evaluate(e, env), (e, out, env)
