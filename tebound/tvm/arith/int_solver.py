"""TVM's ``tvm.arith.int_solver``: integer constraint systems and their solvers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bound.arith import int_solver
from bound.arith.int_solver import IntConstraints, IntConstraintsTransform


def solve_linear_equations(equations: Any, variables: Sequence[Any] | None = None,
                           ranges: Mapping[Any, Any] | None = None) -> IntConstraintsTransform:
    """The solution of the linear *equations* (relations; those not linear equations are kept)
    in *variables* with *ranges*, or of an ``IntConstraints``, as a change of variables."""
    if isinstance(equations, IntConstraints):
        return int_solver.solve_linear_equations(equations)
    if not isinstance(equations, (list, tuple)):
        raise TypeError(f"solve_linear_equations: equations are a list of relations or an IntConstraints, got "
                        f"{equations!r}")
    return int_solver.solve_linear_equations(IntConstraints(variables or [], ranges or {}, equations))


__all__ = ["IntConstraints", "IntConstraintsTransform", "solve_linear_equations"]
