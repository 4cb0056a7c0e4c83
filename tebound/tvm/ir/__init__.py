"""TVM's ``tvm.ir``: ``register_intrin_lowering`` (rules registered for a TVM target's kind, such
as "llvm" or "cuda", apply when building for it)."""

from lower.module import IRModule
from schedule.ir.expr import Op
from schedule.ir.extern_calls import register_intrin_lowering, register_op_attr
from schedule.ir.functor import structural_equal

__all__ = ["IRModule", "Op", "register_intrin_lowering", "register_op_attr", "structural_equal"]
