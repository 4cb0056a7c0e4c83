"""``s.rfactor(tensor, axis, factor_axis)``: a reduction split in two stages, as TVM does it.

The factored stage ``T.rf`` turns the reduction leaf *axis* into a data axis (at position
*factor_axis*) and reduces over the other leaves that come from the same reduction axes; the
original stage then reduces ``T.rf`` over a new axis ``<axis>.v``. Both compute the same
values: every term of the reduction is combined exactly once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir import arith
from schedule.ir.expr import Expr, Reduce, Var
from schedule.ir.functor import substitute
from schedule.ir.intrinsics import likely
from schedule.ir.itervar import REDUCE_VARS, IterVar, IterVarType, Range, reduce_axis
from schedule.operation.compute import ComputeOp
from schedule.operation.tensor import Tensor
from schedule.schedule.dataflow import replace_dataflow
from schedule.schedule.relation_passing import pass_down_domain, pass_up_bound_check, pass_up_index
from schedule.schedule.relations import Fuse, Rebase, Split
from schedule.schedule.stage import Stage

if TYPE_CHECKING:
    from schedule.schedule.schedule import Schedule


def rfactor(sch: Schedule, tensor: Any, axis: Any, factor_axis: int = 0) -> Any:
    """The factored tensor (a list for a multi-output reduction); see the module docstring."""
    if not isinstance(tensor, Tensor):
        raise ScheduleTypeError(f"rfactor: expected a tensor, got {type(tensor).__name__}")
    if not isinstance(axis, IterVar):
        raise ScheduleTypeError(f"rfactor: axis must be an IterVar, not {type(axis).__name__}")
    if not isinstance(factor_axis, int) or isinstance(factor_axis, bool):
        raise ScheduleTypeError(f"rfactor: factor_axis must be an int, not {type(factor_axis).__name__}")
    stage = sch[tensor]
    op = stage.op
    if not isinstance(op, ComputeOp) or not op.reduce_axis:
        raise ScheduleError(f"rfactor: stage '{stage.name}' is not a reduction")
    if axis.iter_type != IterVarType.CommReduce:
        raise ScheduleError(f"rfactor: '{axis.name}' is not a reduction axis of stage '{stage.name}'")
    if not any(leaf is axis for leaf in stage.leaf_iter_vars):
        leaves = ", ".join(iv.name for iv in stage.leaf_iter_vars)
        raise ScheduleError(f"rfactor: '{axis.name}' is not a leaf of stage '{stage.name}' (leaves: {leaves})")
    touched = _touched(stage, axis)
    if any(iv in touched for iv in op.axis):
        raise ScheduleError(f"rfactor: '{axis.name}' is fused with a data axis of stage '{stage.name}'")
    pos = factor_axis if factor_axis >= 0 else len(op.axis) + 1 + factor_axis
    if not 0 <= pos <= len(op.axis):
        raise ScheduleError(f"rfactor: factor_axis {factor_axis} is out of range for {len(op.axis)} axes")
    dom_map: dict[IterVar, Range] = {iv: iv.dom for iv in op.reduce_axis if iv in touched}  # type: ignore[misc]
    pass_down_domain(stage, dom_map, allow_missing=True)
    if arith.value_of(dom_map[axis].min) != 0:
        raise ScheduleError(f"rfactor: '{axis.name}' must start at 0 to become an axis")
    # The new axis keeps the leaf's variable, unless it is a reduce_axis's own (which no data
    # axis may use): then a namesake.
    data_var = Var(axis.var.name, axis.var.dtype) if axis.var in REDUCE_VARS else axis.var
    value_map: dict[IterVar, Expr] = {}
    for iv in stage.leaf_iter_vars:
        if iv in touched:
            value_map[iv] = dom_map[iv].min if arith.value_of(dom_map[iv].extent) == 1 else iv.var
    if value_map[axis] is axis.var:
        value_map[axis] = data_var
    pass_up_index(stage, dom_map, value_map, allow_missing=True)
    flags = pass_up_bound_check(stage, dom_map)
    predicates = [arith.lt(arith.sub(value_map[iv], dom_map[iv].min), dom_map[iv].extent)
                  for iv in stage.all_iter_vars if iv in touched and flags.get(iv) and iv in value_map]
    red = op.body[tensor.value_index]
    if not isinstance(red, Reduce):
        raise ScheduleError(f"rfactor: output {tensor.value_index} of '{stage.name}' is not a reduction")
    # -- all checks done; state changes only below --
    new_axis = IterVar(dom_map[axis], data_var, IterVarType.DataPar)
    axes = [*op.axis[:pos], new_axis, *op.axis[pos:]]
    vsub = {iv.var: value_map[iv] for iv in op.reduce_axis if iv in touched}
    reduce_axes = [iv for iv in op.reduce_axis if iv not in touched]
    reduce_axes += [IterVar(dom_map[iv], iv.var, IterVarType.CommReduce, iv.thread_tag)
                    for iv in stage.leaf_iter_vars if iv in touched and iv is not axis]
    conditions = [*predicates, red.condition]
    condition = arith.all(*conditions) if len(conditions) > 1 else red.condition
    if predicates:
        condition = likely(condition)
    source = tuple(substitute(x, vsub) for x in red.source)
    condition = substitute(condition, vsub)
    body = [Reduce(red.combiner, source, tuple(reduce_axes), condition, k, ()) for k in range(len(source))]
    factor_op = ComputeOp(f"{op.name}.rf", op.tag, op.attrs, axes, body)
    factor_stage = Stage(factor_op, sch)
    factor_stage.group = stage.group
    sch.stages.insert(sch.stages.index(stage), factor_stage)
    sch.stage_map[factor_op] = factor_stage
    factors = [factor_op.output(k) for k in range(factor_op.num_outputs)]
    repl_axis = reduce_axis(Range.from_min_extent(dom_map[axis].min, dom_map[axis].extent), f"{axis.name}.v")

    # TVM names the replacement's axes ax0, ax1, ...
    repl_axes = [IterVar(Range.from_min_extent(arith.const(0, d.dtype), d), Var(f"ax{k}", d.dtype),
                         IterVarType.DataPar) for k, d in enumerate(tensor.shape)]
    index = [iv.var for iv in repl_axes]
    at = [*index[:pos], repl_axis.var, *index[pos:]]
    init = tuple(substitute(x, {iv.var: i for iv, i in zip(op.axis, index)}) for x in red.init)
    loads = tuple(t(*at) for t in factors)
    repl_op = ComputeOp(f"{op.name}.repl", op.tag, op.attrs, repl_axes,
                        [Reduce(red.combiner, loads, (repl_axis,), arith.const(True), k, init)
                         for k in range(len(loads))])
    replace_dataflow(sch.stages, {op.output(k): repl_op.output(k) for k in range(op.num_outputs)})
    stage.op = repl_op
    stage.all_iter_vars = list(repl_op.root_iter_vars)
    stage.leaf_iter_vars = list(stage.all_iter_vars)
    stage.relations = []
    stage.iter_var_attrs = {}
    return factors if len(factors) > 1 else factors[0]


def _touched(stage: Stage, axis: IterVar) -> set[IterVar]:
    """The IterVars related to *axis* through the stage's relations, up and down."""
    touched = {axis}
    changed = True
    while changed:
        changed = False
        for rel in stage.relations:
            match rel:
                case Split(parent=p, outer=o, inner=i):
                    group = {p, o, i}
                case Fuse(outer=o, inner=i, fused=f):
                    group = {o, i, f}
                case Rebase(parent=p, rebased=r):
                    group = {p, r}
                case _:
                    continue
            if group & touched and not group <= touched:
                touched |= group
                changed = True
    return touched
