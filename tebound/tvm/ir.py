"""TVM's ``tvm.ir``: ``register_intrin_lowering`` (rules registered for a TVM target's kind, such
as "llvm" or "cuda", apply when building for it)."""

from schedule.ir.extern_calls import register_intrin_lowering

__all__ = ["register_intrin_lowering"]
