"""Hybrid script operations in the loop nest: the stage's loops (the script's outer loops as
the schedule left them) around the body the script has inside them, in an ``extern_scope``."""

from __future__ import annotations

from lower.ir.stmt import AttrStmt, Stmt
from lower.ir.substitute import substitute_stmt
from lower.operation.base import PipelineBuilder, Steps, guard
from lower.operation.extern import ExternLowering, lower_body
from lower.operation.loop_nest import make_loop_nest
from schedule import arith
from schedule.operation.hybrid.op import HybridOp
from schedule.schedule.stage import Stage


class HybridLowering(ExternLowering):
    def produce(self, b: PipelineBuilder, st: Stage) -> Steps | Stmt:
        op = st.op
        assert isinstance(op, HybridOp)
        if op.loop_body is None:
            return super().produce(b, st)
        return self._loops(b, st, op)

    def _loops(self, b: PipelineBuilder, st: Stage, op: HybridOp) -> Steps:
        leaves = st.leaf_iter_vars
        nest = make_loop_nest(st, b.bounds, leaves, b.keep_trivial)
        assert op.loop_body is not None
        body = substitute_stmt(lower_body(op.name, op.loop_body), {iv.var: nest.values[iv] for iv in op.axis})
        preds = b.checks(st, nest, nest.values, set(), False)
        stmt = yield b.wrap(nest, guard(preds, body), 0, len(leaves), True)
        return AttrStmt(arith.const(0), "extern_scope", arith.const(0), stmt)
