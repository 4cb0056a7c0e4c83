"""TVM's ``tvm.ir.module``: ``IRModule``."""

from lower.module import IRModule

__all__ = ["IRModule"]
