"""TVM's ``tvm.ir.structural_equal`` and ``assert_structural_equal``: Python numbers compare as
the constants they convert to, and with ``map_free_vars`` the free variables of the two sides
correspond in order of first appearance."""

from __future__ import annotations

from typing import Any

from bound.arith.int_solver import IntConstraints
from schedule.ir.arith import convert
from schedule.ir.functor import structural_equal as _structural_equal
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
    return x


def structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> bool:
    """Whether *lhs* and *rhs* are the same tree (numbers as the constants they convert to)."""
    return _structural_equal(_side(lhs), _side(rhs), map_free_vars)


def assert_structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> None:
    """Raise ValueError, showing both, unless *lhs* and *rhs* are the same tree (TVM's check)."""
    if not structural_equal(lhs, rhs, map_free_vars):
        raise ValueError(f"StructuralEqual check failed:\n{lhs}\n-- is not --\n{rhs}")
