"""TVM's ``tvm.tir.stmt_functor``: ``post_order_visit`` and ``ir_transform`` over statements
and expressions (an ``ir_builder`` body is lowered first)."""

from lower.ir.stmt_functor import post_order_visit
from lower.transform import ir_transform

__all__ = ["ir_transform", "post_order_visit"]
