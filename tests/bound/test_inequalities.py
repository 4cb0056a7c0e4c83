"""Linear integer inequalities solved by Fourier-Motzkin elimination, checked by enumeration:
the bounds as conditions hold exactly where the system does; the ranges found contain every
solution and, with the relations kept, admit no other point; the change to variables that
start at 0 maps solutions to solutions both ways. Hand-worked systems check the bounds
themselves."""

from __future__ import annotations

import itertools
import random

import pytest

import schedule as te
from bound.arith.inequalities import as_conditions, solve, solve_deskew_ranges, solve_to_ranges
from bound.arith.int_solver import IntConstraints
from schedule.ir import arith
from schedule.ir.expr import IntImm
from schedule.ir.itervar import Range

from .int_points import holds, points, value

OPS = (arith.le, arith.lt, arith.ge, arith.gt, arith.equal)


def _random_system(rng, n, m, box):
    variables = [te.var(f"x{i}") for i in range(n)]
    relations = []
    for _ in range(m):
        sides = [sum((v * rng.randint(-2, 2) for v in variables), arith.const(rng.randint(-3, 3), "int32"))
                 for _ in range(2)]
        relations.append(rng.choice(OPS)(*sides))
    ranges = {v: Range.from_min_extent(lo, hi - lo) for v, (lo, hi) in zip(variables, box)}
    return IntConstraints(variables, ranges, relations)


def _random_systems(seed, count, max_vars, max_relations):
    """*count* random systems over at most *max_vars* variables in [-4, 4], with their box."""
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.randint(1, max_vars)
        box = [(-4, 5)] * n
        yield _random_system(rng, n, rng.randint(1, max_relations), box), box


def test_the_bounds_as_conditions_hold_exactly_where_the_system_does():
    for system, box in _random_systems(1, 20, 3, 3):
        conditions = as_conditions(system.variables, *solve(system))
        for point in points(box):
            env = dict(zip(system.variables, point))
            assert holds(conditions, env) == holds(system.relations, env), (system.relations, point)


def test_the_ranges_hold_every_solution_and_the_relations_the_rest():
    for system, box in _random_systems(2, 20, 3, 3):
        solved = solve_to_ranges(system)
        for point in points(box):
            env = dict(zip(system.variables, point))
            inside = all(value(r.min, env) <= env[v] < value(r.min, env) + value(r.extent, env)
                         for v, r in solved.ranges.items())
            assert (inside and holds(solved.relations, env)) == holds(system.relations, env), (
                system.relations, point, solved)


def test_deskewed_variables_map_solutions_both_ways():
    for system, box in _random_systems(3, 20, 2, 2):
        t = solve_deskew_ranges(system)
        solutions = [p for p in points(box) if holds(system.relations, dict(zip(system.variables, p)))]
        if t.dst.relations and isinstance(t.dst.relations[0], IntImm) and not t.dst.relations[0].value:
            assert not solutions
            continue
        images = set()
        for point in solutions:
            env = dict(zip(system.variables, point))
            new = {v: value(t.dst_to_src[v], env) for v in t.dst.variables}
            for v, r in t.dst.ranges.items():
                assert 0 <= new[v] < value(r.extent, new)
            assert holds(t.dst.relations, new)
            assert tuple(value(t.src_to_dst[v], new) for v in system.variables) == point
            images.add(tuple(new[v] for v in t.dst.variables))
        # every point of the new ranges that meets the relations is one of those images
        ranges = [t.dst.ranges[v] for v in t.dst.variables]
        count = 0
        for new_point in itertools.product(*(range(0, 12) for _ in ranges)):
            new = dict(zip(t.dst.variables, new_point))
            if all(p < value(r.extent, new) for p, r in zip(new_point, ranges)) and holds(t.dst.relations, new):
                count += 1
                assert new_point in images
        assert count == len(images)


def test_two_bounds_of_one_variable_give_its_range():
    x, y = te.var("x"), te.var("y")
    # x in [-100, 100), y in [0, 10); x + y <= 20, x - y >= 10: y <= 5, y + 10 <= x <= 20 - y
    system = IntConstraints([x, y], {x: Range.from_min_extent(-100, 200), y: Range.from_min_extent(0, 10)},
                            [arith.le(x + y, 20), arith.ge(x - y, 10)])
    solved = solve_to_ranges(system)
    assert (solved.ranges[y].min.value, solved.ranges[y].extent.value) == (0, 6)
    assert solved.ranges[x].extent.value == 11  # the widest: 10 - 2y + 1 at y = 0
    for yv in range(6):
        assert value(solved.ranges[x].min, {y: yv}) == yv + 10


def test_a_system_with_no_solution_says_so():
    x = te.var("x")
    system = IntConstraints([x], {x: Range.from_min_extent(-20, 41)}, [arith.le(-x - 4, -5 * x + 2),
                                                                        arith.le(x * 4 + 5, x * 5)])
    solved = solve_to_ranges(system)
    assert solved.ranges == {} and [bool(r) for r in solved.relations] == [False]
    t = solve_deskew_ranges(system)
    assert t.dst.variables == [] and t.src_to_dst == {}


def test_a_variable_listed_twice_is_refused():
    x = te.var("x")
    with pytest.raises(ValueError, match="listed twice"):
        solve(IntConstraints([x, x], {}, [arith.le(x, 3)]))
