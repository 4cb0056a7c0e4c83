"""TVM's ``tvm.arith.int_solver``: integer constraint systems and their solvers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bound.arith import inequalities, int_solver
from bound.arith.int_solver import IntConstraints, IntConstraintsTransform
from tebound.tvm.arith.analyzer import Analyzer


def solve_linear_equations(equations: Any, variables: Sequence[Any] | None = None,
                           ranges: Mapping[Any, Any] | None = None) -> IntConstraintsTransform:
    """The solution of the linear *equations* (relations; those not linear equations are kept)
    in *variables* with *ranges*, or of an ``IntConstraints``, as a change of variables."""
    if isinstance(equations, IntConstraints):
        return int_solver.solve_linear_equations(equations, Analyzer)
    if not isinstance(equations, (list, tuple)):
        raise TypeError(f"solve_linear_equations: equations are a list of relations or an IntConstraints, got "
                        f"{equations!r}")
    return int_solver.solve_linear_equations(IntConstraints(variables or [], ranges or {}, equations), Analyzer)


def _system(name: str, equations: Any, variables: Sequence[Any] | None, ranges: Mapping[Any, Any] | None
            ) -> IntConstraints:
    if isinstance(equations, IntConstraints):
        if variables is not None or ranges is not None:
            raise TypeError(f"{name}: an IntConstraints holds its variables and ranges; pass them in it only")
        return equations
    if not isinstance(equations, (list, tuple)):
        raise TypeError(f"{name}: equations are a list of relations or an IntConstraints, got {equations!r}")
    return IntConstraints(variables or [], ranges or {}, equations)


def solve_linear_inequalities(equations: Any, variables: Sequence[Any] | None = None,
                              ranges: Mapping[Any, Any] | None = None, deskew_range: bool = False) -> Any:
    """The ranges of *variables* under the linear inequalities *equations* (an
    ``IntConstraints``, the relations the ranges do not imply kept), or with *deskew_range* a
    change to new variables whose ranges start at 0 (an ``IntConstraintsTransform``)."""
    system = _system("solve_linear_inequalities", equations, variables, ranges)
    if deskew_range:
        return inequalities.solve_deskew_ranges(system, Analyzer)
    return inequalities.solve_to_ranges(system)


def solve_inequalities_as_condition(variables: Sequence[Any], ranges: Mapping[Any, Any] | None,
                                    relations: Sequence[Any]) -> list[Any]:
    """The bounds of each variable as comparisons, then the relations left over (TVM's
    ``SolveInequalitiesAsCondition``)."""
    system = IntConstraints(variables, ranges or {}, relations)
    return inequalities.as_conditions(system.variables, *inequalities.solve(system))


__all__ = ["IntConstraints", "IntConstraintsTransform", "solve_inequalities_as_condition", "solve_linear_equations",
           "solve_linear_inequalities"]
