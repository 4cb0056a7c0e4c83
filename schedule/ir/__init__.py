"""The expression IR (TVM's tir expressions): nodes, dtypes, builders, loop variables, functors,
the printer, evaluation, intrinsics, buffers and the statements of extern bodies.

``arith``, ``functor`` and ``printer`` are imported first: they install the operators, the
structural equality and the text of the expression nodes (``schedule.ir.expr.install``)."""

# isort: off
from schedule.ir import arith, functor, printer
# isort: on
from schedule.ir import ir_builder
from schedule.ir.buffer import BufferArg, DeclBuffer, call_packed, decl_buffer
from schedule.ir.expr import CommReducer, Expr, ProducerLoad, Reduce, Var
from schedule.ir.itervar import IterVar, IterVarType, Range, reduce_axis, thread_axis

__all__ = ["BufferArg", "CommReducer", "DeclBuffer", "Expr", "IterVar", "IterVarType", "ProducerLoad", "Range",
           "Reduce", "Var", "arith", "call_packed", "decl_buffer", "functor", "ir_builder", "printer",
           "reduce_axis", "thread_axis"]
