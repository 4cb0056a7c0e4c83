"""Lowering of scans: the init's pipeline, then the scan axis loop with the body's stages
inside it (they are attached there); every one of them writes the scan's own output."""

from __future__ import annotations

from lower.ir.stmt import NO_OP
from lower.operation.base import OperationLowering, PipelineBuilder, Steps, guard
from lower.operation.loop_nest import make_loop_nest
from schedule.operation.scan import ScanOp
from schedule.operation.tensor import Operation
from schedule.schedule.stage import Stage


class ScanLowering(OperationLowering):
    def placed_inside(self, op: Operation) -> list[Operation]:
        assert isinstance(op, ScanOp)
        return list(dict.fromkeys(t.op for t in op.init))

    def produce(self, b: PipelineBuilder, st: Stage) -> Steps:
        op = st.op
        assert isinstance(op, ScanOp)
        leaves = st.leaf_iter_vars
        nest = make_loop_nest(st, b.bounds, leaves, b.keep_trivial)
        preds = b.checks(st, nest, nest.values, set(), False)
        steps = yield b.wrap(nest, guard(preds, NO_OP), 0, len(leaves), True)
        inits = [b.stage_of(o) for o in self.placed_inside(op)]
        return (yield b.pipelines(inits, steps))
