"""TVM's ``tvm.ir``: ``Range``, ``IRModule``, ``Op``, structural equality (``structural_equal``,
``assert_structural_equal``), JSON round trips and ``register_intrin_lowering`` (rules
registered for a TVM target's kind, such as "llvm" or "cuda", apply when building for it)."""

from lower.module import IRModule
from schedule.base.serialize import load_json, save_json
from schedule.ir.expr import Op
from schedule.ir.extern_calls import register_intrin_lowering, register_op_attr
from schedule.ir.itervar import Range
from tebound.tvm.ir import expr, module, transform
from tebound.tvm.ir.equal import assert_structural_equal, structural_equal
from tebound.tvm.ir.expr import GlobalVar, PrimExpr
from tebound.tvm.ir.nodes import make_node

__all__ = ["GlobalVar", "IRModule", "Op", "PrimExpr", "Range", "assert_structural_equal", "expr", "load_json",
           "make_node", "module", "register_intrin_lowering", "register_op_attr", "save_json", "structural_equal",
           "transform"]
