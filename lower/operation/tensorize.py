"""Lowering of a tensorized compute (TVM's MakeTensorize): the loops outside the tensorized
leaf around the intrinsic's calls, each buffer of the intrinsic bound to the region it stands
for (a ``buffer_bind_scope`` that storage flattening resolves).

When reduction loops remain outside the tensorized leaf, the reduction is split: the
intrinsic's reset (or, without one, its body at the first reduction step) and its update.
"""

from __future__ import annotations

from collections.abc import Mapping

from bound.errors import BoundError
from bound.inference.tensorize import TensorizeRegion, tensorize_region, verify_body
from lower.errors import LoweringError
from lower.ir.stmt import AttrStmt, BufferBind, Evaluate, IfThenElse, Stmt, seq
from lower.ir.substitute import substitute_stmt
from lower.operation.base import PipelineBuilder, Steps, guard, init_nest
from lower.operation.loop_nest import LoopNest, make_loop_nest, reduction_flags
from schedule import arith
from schedule.ir.expr import Call, Expr, Var
from schedule.ir.functor import free_vars
from schedule.ir.ir_builder import Emitted
from schedule.ir.itervar import IterVarType, Range
from schedule.operation.compute import ComputeOp
from schedule.schedule.stage import Stage


def tensorized(b: PipelineBuilder, st: Stage) -> Steps:
    """*st*'s loops down to its tensorized leaf around the intrinsic's calls."""
    op = st.op
    assert isinstance(op, ComputeOp)
    try:
        region = tensorize_region(st, b.bounds)
    except BoundError as err:
        raise LoweringError(str(err)) from None
    intrin, tloc = region.intrin, region.position
    name = f"tensorize: stage '{st.name}' with intrinsic '{intrin.name}'"
    leaves = st.leaf_iter_vars
    nest = make_loop_nest(st, b.bounds, leaves, b.keep_trivial)
    before = list(nest.loops)
    preds = b.checks(st, nest, nest.values, set(), False)
    _check_outside(name, preds, nest, before, tloc)
    value_map = {iv.var: v for iv, v in nest.values.items()}
    try:
        verify_body(st, b.bounds, region, value_map)
    except BoundError as err:
        raise LoweringError(str(err)) from None
    flags = reduction_flags(st)
    begin = next((k for k, iv in enumerate(leaves) if flags.get(iv, 0) & 2), len(leaves))

    def bound(calls: Emitted | None, what: str, inputs: bool, values: Mapping[Var, Expr]) -> Stmt:
        if calls is None:
            raise LoweringError(f"{name}: the intrinsic has no {what}, which this schedule needs")
        return substitute_stmt(_bind(region, _calls(calls), inputs), values)

    if tloc <= begin:  # every reduction loop is inside the intrinsic
        body = bound(intrin.body, "body", True, value_map)
        return (yield b.wrap(nest, guard(preds, body), 0, tloc, True))
    if intrin.reduce_init is None:
        # The body starts the reduction at its first step, the update continues it.
        first = [arith.gt(iv.var, b.bounds[iv].min) for iv in leaves[:tloc]
                 if iv.iter_type == IterVarType.CommReduce]
        banned = {iv.var for iv in leaves[:tloc] if iv.iter_type == IterVarType.CommReduce}
        for p in preds:
            if set(free_vars([p])) & banned:
                raise LoweringError(f"{name}: the condition {p} depends on a reduction loop, which the "
                                    "choice between the intrinsic's body and its update also does")
        cond = arith.any(*first) if len(first) > 1 else first[0]
        update = bound(intrin.reduce_update, "update", True, {})
        body = bound(intrin.body, "body", True, {})
        step = substitute_stmt(IfThenElse(Call("bool", "likely", (cond,)), update, body), value_map)
        step = yield b.wrap(nest, guard(preds, step), begin, tloc, True)
        return (yield b.wrap(nest, step, 0, begin, True))
    update = bound(intrin.reduce_update, "update", True, value_map)
    update = yield b.wrap(nest, guard(preds, update), begin, tloc, True)
    loops, values, init_preds = init_nest(b, st, nest, begin, tloc)
    init = bound(intrin.reduce_init, "reset", False, {iv.var: v for iv, v in values.items()})
    init = yield b.wrap(loops, guard(init_preds, init), 0, len(loops.leaves), False)
    return (yield b.wrap(nest, seq(init, update), 0, begin, True))


def _check_outside(name: str, preds: list[Expr], nest: LoopNest, before: list, tloc: int) -> None:
    """The loops inside the tensorized scope must run whole: no guard may depend on them."""
    inner = {loop[0] for loop in before[tloc:] if loop is not None}
    inner |= {iv.var for iv in nest.leaves[tloc:]}
    for p in preds:
        late = set(free_vars([p])) & inner
        if late:
            raise LoweringError(f"{name}: the condition {p} depends on '{sorted(v.name for v in late)[0]}', a "
                                "loop inside the tensorized scope; choose split factors that divide the extents")
    for k in range(tloc, len(before)):
        if nest.loops[k] != before[k]:
            raise LoweringError(f"{name}: loop '{nest.leaves[k].name}' inside the tensorized scope has a tail; "
                                "choose split factors that divide the extents")


def _calls(calls: Emitted) -> Stmt:
    return seq(*(Evaluate(c) for c in calls.calls))


def _bind(region: TensorizeRegion, body: Stmt, inputs: bool) -> Stmt:
    """*body* with the intrinsic's output buffers (and input buffers if *inputs*) bound to the
    regions they stand for, inputs outermost."""
    intrin, op = region.intrin, region.op
    out_box = [region.out_dom[iv] for iv in op.axis]
    n_in = len(intrin.inputs)
    for k in reversed(range(len(intrin.buffers) - n_in)):
        body = _scope(intrin.buffers[n_in + k], op.output(k), out_box, body)
    if inputs:
        for k, tensor in reversed(list(enumerate(op.input_tensors))):
            body = _scope(intrin.buffers[k], tensor, region.in_region[tensor], body)
    return body


def _scope(buffer: object, tensor: object, box: list[Range], body: Stmt) -> Stmt:
    items: list[Expr] = []
    for r in box:
        items += [r.min, r.extent]
    return AttrStmt(BufferBind(buffer, tensor), "buffer_bind_scope",  # type: ignore[arg-type]
                    Call("handle", "tvm_tuple", tuple(items)), body)

