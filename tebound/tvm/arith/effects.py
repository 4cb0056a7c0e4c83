"""What evaluating an expression does besides computing it, as TVM's analyzers ask: calls with
effects (external or packed functions, a module's functions) and reads of memory, whose value
may change. Facts about such expressions are not kept."""

from __future__ import annotations

from lower.ir.stmt import Load
from schedule.ir.expr import Call, Expr, ProducerLoad
from schedule.ir.extern_stmt import ElemLoad
from schedule.ir.functor import distinct_post_order

#: Calls with effects beyond reading state.
IMPURE_CALLS = ("tvm_call_packed", "call_extern", "call_pure_extern", "call_packed", "tvm_call_packed_lowered")


def has_effects(e: Expr) -> bool:
    """Whether *e* calls something with effects beyond reading state: an external or packed
    function, or a function of a module (opaque)."""
    return any(isinstance(n, Call) and (not isinstance(n.name, str) or n.name.removeprefix("tir.") in IMPURE_CALLS)
               for n in distinct_post_order(e))


def reads_memory(e: Expr) -> bool:
    """Whether *e* reads a buffer or tensor (TVM's ``kReadState``), whose value may change."""
    return any(isinstance(n, (Load, ElemLoad, ProducerLoad)) for n in distinct_post_order(e))
