"""Vector stores as loops of scalar stores: ``A[0:4] = T.Broadcast(x, 4)`` (written in
TVMScript, or built by hand) becomes ``for lane in range(4): A[lane] = x``, which every target
computes. Lowering a schedule never makes vector stores (a vectorized loop stays a loop)."""

from __future__ import annotations

from lower.ir.stmt import For, ForKind, Stmt, Store
from lower.ir.stmt_functor import ir_transform
from schedule.ir import arith
from schedule.ir.dtype import element, lanes
from schedule.ir.expr import Broadcast, Expr, Ramp, Var
from schedule.ir.functor import ExprMutator


class _Lane(ExprMutator):
    """One lane of a vector expression: a ramp's element, a broadcast's value."""

    def __init__(self, lane: Var) -> None:
        self.lane = lane

    def visit_ramp(self, e: Ramp) -> Expr:
        return arith.add(self(e.base), arith.mul(self(e.stride), arith.cast(e.base.dtype, self.lane)))

    def visit_broadcast(self, e: Broadcast) -> Expr:
        return self(e.value)


def _scalar_store(s: Stmt) -> Stmt | None:
    if not isinstance(s, Store):
        return None
    n = max(lanes(s.index.dtype), lanes(s.value.dtype))
    if n == 1:
        return None
    lane = Var("lane", element(s.index.dtype) if lanes(s.index.dtype) > 1 else "int32")
    one = _Lane(lane)
    return For(lane, arith.const(0, lane.dtype), arith.const(n, lane.dtype), ForKind.SERIAL,
               Store(s.buffer, one(s.value), one(s.index), tuple(one(c) for c in s.checks), s.checked))


def scalarize_vectors(body: Stmt) -> Stmt:
    """*body* with each vector store a serial loop over its lanes."""
    return ir_transform(body, None, _scalar_store, ["tir.Store"])
