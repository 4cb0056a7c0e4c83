"""TVM's ``tvm.tir.buffer``: ``decl_buffer`` and ``Buffer``."""

from schedule import decl_buffer
from schedule.ir.buffer import DeclBuffer as Buffer

__all__ = ["Buffer", "decl_buffer"]
