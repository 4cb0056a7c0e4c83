"""Linear integer equations solved by the Smith normal form: the diagonalization checked on its
own (U A V = S with V unimodular), and solutions checked against enumeration in NumPy: every
integer point of the box that satisfies the equations maps to a point of the new system and
back, and every point of the new system to a solution."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

import schedule as te
from bound.arith.int_solver import IntConstraints, extended_gcd, smith_diagonalize, solve_linear_equations
from schedule.ir import arith
from schedule.ir.expr import IntImm
from schedule.ir.itervar import Range

from .int_points import holds, points, value


@pytest.mark.parametrize("a,b", [(12, 18), (-12, 18), (7, -3), (0, 5), (5, 0), (-4, -6)])
def test_extended_gcd_gives_bezouts_numbers(a, b):
    g, x, y = extended_gcd(a, b)
    assert g == np.gcd(a, b) and a * x + b * y == g


def test_the_diagonal_form_is_the_equations_changed_by_unimodular_operations():
    rng = random.Random(3)
    for _ in range(30):
        m, n = rng.randint(1, 4), rng.randint(1, 4)
        A = [[rng.randint(-6, 6) for _ in range(n)] for _ in range(m)]
        S = [row[:] for row in A]
        V = [[int(i == j) for j in range(n)] for i in range(n)]
        xs = [te.var(f"x{i}") for i in range(n)]
        ys = [te.var(f"y{i}") for i in range(m)]
        x, y = list(xs), list(ys)
        smith_diagonalize(S, V, x, y)
        assert all(S[i][j] == 0 for i in range(m) for j in range(n) if i != j)
        assert round(abs(np.linalg.det(np.array(V, dtype=float)))) == 1  # V is invertible over the integers
        # S == U A V for the U the row operations applied to y: y' = U y, so S V^-1 x = U A x
        point = [rng.randint(-5, 5) for _ in range(n)]
        env = dict(zip(xs, point))
        rhs = {yi: sum(A[i][j] * point[j] for j in range(n)) for i, yi in enumerate(ys)}
        v_inv_x = [value(e, env) for e in x]
        for i in range(m):
            lhs = sum(S[i][j] * v_inv_x[j] for j in range(n))
            assert lhs == value(y[i], rhs)


def _enumerate_check(solution, variables, box):
    """Every solution in *box* maps into the new system and back; every point of the new
    system in range solves the equations."""
    src, dst = solution.src, solution.dst
    found = 0
    for point in points(box):
        env = dict(zip(variables, point))
        if not holds(src.relations, env):
            continue
        found += 1
        new = {v: value(solution.dst_to_src[v], env) for v in dst.variables}
        assert holds(dst.relations, new), (point, new)
        for v in dst.variables:
            r = dst.ranges.get(v)
            if r is not None:
                assert value(r.min, {}) <= new[v] < value(r.min, {}) + value(r.extent, {})
        assert [value(solution.src_to_dst[v], new) for v in variables] == list(point)
    ranges = [range(value(dst.ranges[v].min, {}), value(dst.ranges[v].min, {}) + value(dst.ranges[v].extent, {}))
              for v in dst.variables]
    back = 0
    for point in itertools.product(*ranges):
        new = dict(zip(dst.variables, point))
        if not holds(dst.relations, new):
            continue
        back += 1
        env = {v: value(solution.src_to_dst[v], new) for v in variables}
        assert holds(src.relations, env)
        assert all(lo <= env[v] < hi for v, (lo, hi) in zip(variables, box))
    assert back == found


def test_random_systems_solve_to_the_same_integer_points():
    rng = random.Random(7)
    for trial in range(25):
        n = rng.randint(1, 3)
        variables = [te.var(f"x{i}") for i in range(n)]
        relations = []
        for _ in range(rng.randint(1, 3)):
            lhs = sum((v * rng.randint(-3, 3) for v in variables), arith.const(rng.randint(-4, 4), "int32"))
            relations.append(arith.equal(lhs, rng.randint(-4, 4)))
        box = [(-6, 7)] * n
        ranges = {v: Range.from_min_extent(lo, hi - lo) for v, (lo, hi) in zip(variables, box)}
        solution = solve_linear_equations(IntConstraints(variables, ranges, relations))
        if solution.dst.relations and isinstance(solution.dst.relations[0], IntImm) \
                and not solution.dst.relations[0].value:
            # no solution: no point of the box solves the equations
            assert not any(holds(relations, dict(zip(variables, p)))
                           for p in points(box)), trial
            continue
        _enumerate_check(solution, variables, box)


def test_a_unique_solution_makes_no_new_variable():
    x, y = te.var("x"), te.var("y")
    solution = solve_linear_equations(IntConstraints([x, y], {}, [arith.equal(x + y, 20), arith.equal(x - y, 10)]))
    assert solution.dst.variables == []
    assert (solution.src_to_dst[x].value, solution.src_to_dst[y].value) == (15, 5)


def test_an_even_sum_of_odd_parts_has_no_solution():
    x, y = te.var("x"), te.var("y")
    solution = solve_linear_equations(IntConstraints([x, y], {}, [arith.equal(2 * x + 4 * y, 7)]))
    assert [r.value for r in solution.dst.relations] == [0] and solution.src_to_dst == {}


def test_equations_it_cannot_read_stay_as_relations_over_the_new_variables():
    x, y = te.var("x"), te.var("y")
    solution = solve_linear_equations(IntConstraints([x, y], {}, [arith.equal(x, 3), arith.equal(x * y, 6)]))
    assert solution.src_to_dst[x].value == 3
    [free] = solution.dst.variables
    assert solution.dst_to_src[free] is y
    assert any(value(r, {free: 2}) for r in solution.dst.relations)
    assert not all(value(r, {free: 5}) for r in solution.dst.relations)


def test_bad_systems_are_refused():
    with pytest.raises(TypeError, match="variables are Vars"):
        IntConstraints([1], {}, [])
    with pytest.raises(TypeError, match="ranges map a Var to a Range"):
        IntConstraints([te.var("x")], {te.var("x"): (0, 4)}, [])
    with pytest.raises(TypeError, match="relations are conditions"):
        IntConstraints([te.var("x")], {}, [te.var("x") + 1])
