"""TVM's ``tvm.ir``: ``Range``, ``IRModule``, ``Op``, structural equality (``structural_equal``,
``assert_structural_equal``), JSON round trips and ``register_intrin_lowering`` (rules
registered for a TVM target's kind, such as "llvm" or "cuda", apply when building for it)."""

from __future__ import annotations

from typing import Any

from lower.module import IRModule
from schedule.base.serialize import load_json, save_json
from schedule.ir.expr import Op
from schedule.ir.extern_calls import register_intrin_lowering, register_op_attr
from schedule.ir.functor import structural_equal
from schedule.ir.itervar import Range
from tebound.tvm.ir.nodes import make_node


def assert_structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> None:
    """Raise ValueError, showing both, unless *lhs* and *rhs* are the same tree (TVM's check).

    :raises ValueError: when *map_free_vars* is asked for: free variables compare by identity here.
    """
    if map_free_vars:
        raise ValueError("assert_structural_equal: map_free_vars=True is not supported; variables compare by "
                         "identity here")
    if not structural_equal(lhs, rhs):
        raise ValueError(f"StructuralEqual check failed:\n{lhs}\n-- is not --\n{rhs}")


__all__ = ["IRModule", "Op", "Range", "assert_structural_equal", "load_json", "make_node",
           "register_intrin_lowering", "register_op_attr", "save_json", "structural_equal"]
