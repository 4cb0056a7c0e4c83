"""TVM's ``tvm.tir.stmt_functor``: ``post_order_visit`` over statements and expressions."""

from lower.ir.stmt_functor import post_order_visit

__all__ = ["post_order_visit"]
