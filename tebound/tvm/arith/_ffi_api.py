"""TVM's ``tvm.arith._ffi_api``: the solver entry points TVM's tests call directly."""

from tebound.tvm.arith.int_solver import solve_inequalities_as_condition as SolveInequalitiesAsCondition  # noqa: N812

__all__ = ["SolveInequalitiesAsCondition"]
