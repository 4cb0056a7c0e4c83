"""TVM's ``tvm.ir.assert_structural_equal``."""

from __future__ import annotations

from typing import Any

from schedule.ir.functor import structural_equal


def assert_structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> None:
    """Raise ValueError, showing both, unless *lhs* and *rhs* are the same tree (TVM's check).

    :raises ValueError: when *map_free_vars* is asked for: free variables compare by identity here.
    """
    if map_free_vars:
        raise ValueError("assert_structural_equal: map_free_vars=True is not supported; variables compare by "
                         "identity here")
    if not structural_equal(lhs, rhs):
        raise ValueError(f"StructuralEqual check failed:\n{lhs}\n-- is not --\n{rhs}")
