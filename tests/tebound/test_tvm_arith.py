"""``tvm.arith`` as TVM's tests call it: constant bounds by TVM's rules (hand cases, and every
value of random expressions inside the bound it gives), ``update``, ``int_set``, interval sets
built from Python integers and ``detect_linear_equation``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tebound.tvm as tvm
from schedule.ir.evaluate import evaluate
from tebound.tvm import te

Bound = tvm.arith.ConstIntBound
INF, NINF = Bound.POS_INF, Bound.NEG_INF


def bound(expr, known=None):
    ana = tvm.arith.Analyzer()
    for var, (lo, hi) in (known or {}).items():
        ana.update(var, Bound(lo, hi))
    b = ana.const_int_bound(expr)
    return b.min_value, b.max_value


def test_dtype_ends_and_infinities():
    assert bound(te.var("x", "int64")) == (NINF, INF)
    assert bound(te.var("x", "int8")) == (-128, 127)
    assert bound(te.var("x", "uint8")) == (0, 255)
    assert bound(te.size_var("n") - 1) == (-1, INF)


def test_a_cast_clips_to_its_type_as_tvm_does():
    x = te.var("x", "int8")
    assert bound(te.truncmod(x, 3).astype("uint32")) == (0, 2)
    assert bound(te.truncmod(x, 3).astype("float32").astype("int32")) == (-2, 2)


def test_an_integer_ceil_log2_is_bounded_through_its_argument():
    i = te.var("i")
    x = te.ceil(te.log2((i + 1025).astype("float64"))).astype("int32")
    want = np.ceil(np.log2(np.arange(1025, 1041)))
    assert bound(x, {i: (0, 15)}) == (want.min(), want.max()) == (11, 11)
    assert bound(x, {i: (0, 1023)}) == (11, 11)
    assert bound(x, {i: (-2000, 15)})[0] < 0  # log2 of a non-positive value: no bound


def test_a_residue_under_a_negative_divisor_is_a_residue():
    i = te.var("i")
    ana = tvm.arith.Analyzer()
    with ana.constraint_scope(te.floormod(i, -2) == 0):
        assert (ana.modular_set(i).coeff, ana.modular_set(i).base) == (2, 0)
        assert ana.simplify(te.floormod(i, 2) == 0).value == 1
    with ana.constraint_scope(te.truncmod(i, -3) == 1):
        assert (ana.modular_set(i).coeff, ana.modular_set(i).base) == (3, 1)


def test_sums_saturate_and_opposite_infinities_widen():
    x, y = te.var("x", "int64"), te.var("y", "int64")
    ana = tvm.arith.Analyzer()
    ana.update(x, Bound(0, INF))
    ana.update(y, Bound(1, 10))
    assert (ana.const_int_bound(x - y).min_value, ana.const_int_bound(x - y).max_value) == (-10, INF)
    assert ana.const_int_bound(1 - x).min_value == NINF
    ana.update(x, Bound(INF, INF), override=True)
    ana.update(y, Bound(NINF, INF), override=True)
    assert (ana.const_int_bound(x + y).min_value, ana.const_int_bound(x + y).max_value) == (NINF, INF)


def test_division_and_modulo_rules():
    x, y = te.var("x"), te.var("y")
    assert bound(te.truncdiv(x, y), {x: (-9, 4), y: (4, 10)}) == (-2, 1)
    assert bound(te.floordiv(x, y), {x: (-9, 4), y: (4, 10)}) == (-3, 1)
    assert bound(te.floordiv(x, y), {x: (4, 10), y: (-2, 2)}) == (-10, 10)  # either side of zero
    assert bound(te.truncmod(x, y), {x: (-9, 4), y: (4, 10)}) == (-9, 4)
    assert bound(te.floormod(x, y), {x: (-9, 4), y: (4, 10)}) == (0, 9)
    assert bound(te.floormod(x, y), {x: (0, 3), y: (4, 10)}) == (0, 3)
    assert bound(te.floormod(x, y), {x: (-21, 20), y: (-5, -3)}) == (-4, 0)


def test_shift_and_bitwise_and():
    x, y = te.var("x"), te.var("y")
    assert bound(x >> y, {x: (-9, 4), y: (0, 2)}) == (-9, 4)
    assert bound(x & y, {x: (-9, 4), y: (4, 10)}) == (0, 10)
    assert bound(x & y, {x: (10, 14), y: (4, 10)}) == (0, 10)


def test_a_constraint_bounds_the_expression_it_names():
    x, y = te.var("x"), te.var("y")
    ana = tvm.arith.Analyzer()
    with ana.constraint_scope(te.all(x + y < 10, x + y >= 0)):
        b = ana.const_int_bound(x + y)
        assert (b.min_value, b.max_value) == (0, 9)
    b = ana.const_int_bound(x + y)
    assert b.max_value == 2**32 - 2


def test_update_refuses_a_second_bound_unless_overridden():
    x = te.var("x")
    ana = tvm.arith.Analyzer()
    ana.update(x, Bound(0, 4))
    with pytest.raises(ValueError, match="override=True"):
        ana.update(x, Bound(0, 5))
    ana.update(x, Bound(0, 5), override=True)
    assert ana.const_int_bound(x).max_value == 5
    with pytest.raises(TypeError, match="ConstIntBound"):
        ana.update(x, (0, 5))


def test_int_set_takes_ranges_and_interval_sets():
    x, y = te.var("x"), te.var("y")
    ana = tvm.arith.Analyzer()
    s = ana.int_set(x + y, {x: tvm.arith.IntervalSet(0, 10), y: tvm.ir.Range(1, 12)})
    assert (s.min_value.value, s.max_value.value) == (1, 21)
    assert tvm.arith.IntSet.single_point(2).max_value.value == 2
    s = ana.int_set(te.floormod(x, 10), {x: tvm.arith.IntervalSet(13, 15)})
    assert ana.can_prove_equal(s.min_value, 3) and ana.can_prove_equal(s.max_value, 5)


def test_detect_linear_equation():
    v = [te.var(f"v{i}") for i in range(3)]
    b = te.var("b")
    coeffs = tvm.arith.detect_linear_equation(v[0] * (b + 4) + v[0] + v[1] * 8 + 3, v)
    ana = tvm.arith.Analyzer()
    assert ana.can_prove_equal(coeffs[0], b + 5) and [c.value for c in coeffs[1:]] == [8, 0, 3]
    assert tvm.arith.detect_linear_equation(v[0] * v[1], v) == []
    assert tvm.arith.detect_linear_equation(v[0] * v[1], [v[0]])[0] is v[1]
    with pytest.raises(TypeError, match="variables"):
        tvm.arith.detect_linear_equation(v[0], [1])
    deep = v[0]
    for _ in range(1500):  # deeper than Python's recursion limit
        deep = deep + v[0] * 2 + b
    coeff, rest = tvm.arith.detect_linear_equation(deep, [v[0]])
    assert coeff.value == 3001 and ana.can_prove_equal(rest, b * 1500)


_OPS = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, te.floordiv, te.floormod,
        te.truncdiv, te.truncmod, te.min, te.max]
X, Y = te.var("x"), te.var("y")


@st.composite
def _exprs(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from([X, Y, te.const(draw(st.integers(-9, 9)))]))
    op = draw(st.sampled_from(_OPS))
    a = draw(_exprs(depth=depth - 1))
    if op in (te.floordiv, te.floormod, te.truncdiv, te.truncmod):
        return op(a, te.const(draw(st.sampled_from([-4, -3, 2, 3, 5]))))
    return op(a, draw(_exprs(depth=depth - 1)))


@settings(max_examples=300, deadline=None)
@given(_exprs())
def test_every_value_of_a_random_expression_lies_in_its_bound(e):
    ana = tvm.arith.Analyzer()
    ana.update(X, Bound(-6, 7))
    ana.update(Y, Bound(-3, 5))
    b = ana.const_int_bound(e)
    for vx, vy in itertools.product(range(-6, 8), range(-3, 6)):
        assert b.min_value <= evaluate(e, {X: vx, Y: vy}) <= b.max_value, (e, vx, vy, b)


def test_an_expression_thousands_of_nodes_deep_at_the_default_recursion_limit():
    x = te.var("x")
    e = x
    for i in range(1500):
        e = e + (x * 2 if i % 2 else te.floormod(x, 3))
    ana = tvm.arith.Analyzer()
    ana.update(x, Bound(0, 10))
    b = ana.const_int_bound(e)
    assert (b.min_value, b.max_value) == (0, 10 + 750 * 20 + 750 * 2)
    with ana.constraint_scope(e < 100):
        assert ana.const_int_bound(e).max_value == 99
    m = ana.modular_set(e * 4)
    assert m.coeff % 4 == 0 and m.base == 0


def test_union_lower_bound_joins_only_touching_sets():
    """A set inside the union: [0, 3] and [5, 9] do not touch (4 is in neither), so the second
    is dropped; [4, 9] touches; a set about an unknown x is not provably touching."""
    from tebound.tvm.arith import int_set

    x = tvm.te.var("x")
    low, high = int_set.neg_inf(), int_set.pos_inf()
    iv = tvm.arith.IntervalSet
    r = int_set.union_lower_bound([iv(0, 3), iv(5, 9)])
    assert (r.min_value.value, r.max_value.value) == (0, 3)
    r = int_set.union_lower_bound([iv(0, 3), iv(4, 9), iv(x, x + 1)])
    assert (r.min_value.value, r.max_value.value) == (0, 9)
    r = int_set.union_lower_bound([iv(min_value=low, max_value=0), iv(min_value=1, max_value=high),
                                   iv(min_value=high, max_value=low)])
    assert r.min_value.same_as(low) and r.max_value.same_as(high) and not low.same_as(high)
    assert int_set.union_lower_bound([]).is_empty()


def test_the_solvers_take_tvms_arguments_and_an_integer_constraint_system():
    x, y = te.var("x"), te.var("y")
    eqs = [tvm.tir.EQ(x + y, 20), tvm.tir.EQ(x - y, 10)]
    by_lists = tvm.arith.solve_linear_equations(eqs, [x, y], {})
    by_system = tvm.arith.solve_linear_equations(tvm.arith.IntConstraints([x, y], {}, eqs))
    for sol in (by_lists, by_system):
        assert (int(sol.src_to_dst[x]), int(sol.src_to_dst[y])) == (15, 5)
    # no variables: every equation is kept, and the system is its own solution
    same = tvm.arith.solve_linear_equations(eqs)
    assert tvm.ir.structural_equal(same.src, same.dst) and tvm.ir.structural_equal(same.src.relations, eqs)
    ranges = {x: tvm.ir.Range(0, 10), y: tvm.ir.Range(0, 10)}
    ineq = [x + y <= 12, x >= y + 3]
    solved = tvm.arith.solve_linear_inequalities(ineq, [x, y], ranges)
    conds = tvm.arith._ffi_api.SolveInequalitiesAsCondition([x, y], ranges, ineq)
    for xv, yv in itertools.product(range(10), repeat=2):
        env = {x: xv, y: yv}
        truth = xv + yv <= 12 and xv >= yv + 3
        assert all(evaluate(c, env) for c in conds) == truth
        r = solved.ranges
        inside = all(evaluate(r[v].min, env) <= env[v] < evaluate(r[v].min + r[v].extent, env) for v in (x, y))
        assert (inside and all(evaluate(c, env) for c in solved.relations)) == truth
    tvm.testing.check_int_constraints_trans_consistency(
        tvm.arith.solve_linear_inequalities(ineq, [x, y], ranges, deskew_range=True))


def test_the_solvers_refuse_what_is_not_a_system():
    x = te.var("x")
    with pytest.raises(TypeError, match="list of relations or an IntConstraints"):
        tvm.arith.solve_linear_equations(x == 1, [x])
    with pytest.raises(TypeError, match="holds its variables"):
        tvm.arith.solve_linear_inequalities(tvm.arith.IntConstraints([x], {}, [x <= 1]), [x])
    with pytest.raises(AssertionError, match="Counterexample: x = 3"):
        tvm.testing.check_bool_expr_is_true(x < 3, {x: tvm.ir.Range(0, 5)})
    # a change of variables that does not come back to the same point is caught
    n = te.var("n")
    src = tvm.arith.IntConstraints([x], {x: tvm.ir.Range(0, 4)}, [])
    dst = tvm.arith.IntConstraints([n], {n: tvm.ir.Range(0, 4)}, [])
    with pytest.raises(AssertionError, match="Counterexample"):
        tvm.testing.check_int_constraints_trans_consistency(
            tvm.arith.IntConstraintsTransform(src, dst, {x: n + 1}, {n: x}))
    with pytest.raises(TypeError, match="Range of constants"):
        tvm.testing.check_bool_expr_is_true(x < 3, {x: tvm.ir.Range(0, te.var("n"))})


def test_the_equation_solver_writes_tvms_forms():
    """A free variable's negation reads ``n0*-1`` as TVM's simplifier writes it; every value of
    the new variable gives a solution."""
    x, y, z = te.var("x"), te.var("y"), te.var("z")
    sol = tvm.arith.solve_linear_equations([tvm.tir.EQ(x + y + z, 7), tvm.tir.EQ(x + y, 4)], [x, y, z], {})
    [n0] = sol.dst.variables
    assert tvm.ir.structural_equal(sol.src_to_dst[y], n0 * -1)
    assert tvm.ir.structural_equal(sol.src_to_dst[z], tvm.tir.const(3))
    for v in range(-3, 4):
        vx, vy, vz = (evaluate(sol.src_to_dst[w], {n0: v}) for w in (x, y, z))
        assert vx + vy + vz == 7 and vx + vy == 4
