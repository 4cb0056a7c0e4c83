"""Extern operations in the loop nest: their call, inside an ``extern_scope`` attribute."""

from __future__ import annotations

from lower.operation.base import OperationLowering, PipelineBuilder
from lower.stmt import AttrStmt, Evaluate, Stmt
from schedule import arith
from schedule.stage import Stage
from schedule.tensor import ExternOp


class ExternLowering(OperationLowering):
    def produce(self, b: PipelineBuilder, st: Stage) -> Stmt:
        op = st.op
        assert isinstance(op, ExternOp)
        return AttrStmt(arith.const(0), "extern_scope", arith.const(0), Evaluate(op.body))
