"""TVM's ``tvm.ir.structural_equal`` and ``assert_structural_equal`` over expressions,
statements, functions and modules (:mod:`lower.ir.structural_equal`): Python numbers compare as
the constants they convert to, variables defined inside the trees pair at their definitions,
and with ``map_free_vars`` the free variables pair in the order they are met. The assertion
names the first difference by its path."""

from __future__ import annotations

from typing import Any

from bound.arith.int_solver import IntConstraints
from lower.ir.structural_equal import first_difference
from lower.module import IRModule, as_stmt
from schedule.ir.arith import convert
from schedule.ir.extern_stmt import BodyStmt
from schedule.ir.itervar import Range


def _side(x: Any) -> Any:
    """*x* as a tree the expression comparison walks: numbers as constants, lists as tuples,
    ranges and integer constraint systems as tuples of their parts."""
    if isinstance(x, (bool, int, float)):
        return convert(x)
    if isinstance(x, (list, tuple)):
        return tuple(_side(e) for e in x)
    if isinstance(x, Range):
        return (_side(x.min), _side(x.extent))
    if isinstance(x, dict):
        return tuple((k, _side(v)) for k, v in x.items())
    if isinstance(x, IntConstraints):
        return (_side(x.variables), _side(x.ranges), _side(x.relations))
    if isinstance(x, IRModule):
        return {name: f for name, f in sorted(x.items())}
    if isinstance(x, BodyStmt):  # an ir_builder's body, as the statements it lowers to
        return as_stmt(x, "structural_equal")
    return x


def structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> bool:
    """Whether *lhs* and *rhs* are the same tree (numbers as the constants they convert to)."""
    return first_difference(_side(lhs), _side(rhs), map_free_vars) is None


def assert_structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> None:
    """Raise ValueError unless *lhs* and *rhs* are the same tree (TVM's check), naming the
    first difference: ``StructuralEqual check failed, caused by lhs at <root>.body.extent: ...``."""
    difference = first_difference(_side(lhs), _side(rhs), map_free_vars)
    if difference is not None:
        raise ValueError(str(difference))
