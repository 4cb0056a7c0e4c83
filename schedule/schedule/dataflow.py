"""Rewrites of the dataflow: cache_read and cache_write insert stages and rebuild readers."""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.base.storage_scope import check_scope
from schedule.ir import arith
from schedule.ir.expr import Expr, ProducerLoad, Reduce, Var
from schedule.ir.functor import substitute
from schedule.ir.itervar import IterVar, IterVarType, Range
from schedule.operation.compute import ComputeOp
from schedule.operation.tensor import Tensor
from schedule.schedule.relation_passing import pass_down_domain, pass_down_index, pass_up_bound_check, pass_up_index
from schedule.schedule.stage import AttachType, Stage

if TYPE_CHECKING:
    from schedule.schedule.schedule import Schedule


def replace_dataflow(stages: Sequence[Stage], vmap: MutableMapping[Tensor, Tensor]) -> None:
    """Rebuild every stage reading a key of *vmap* to read its value instead.

    Stages are visited producers first, so a rebuilt operation's outputs join *vmap* in time for
    its own readers.
    """
    for st in stages:
        new = st.op.replace_inputs(vmap)
        if new is not st.op:
            for k in range(st.op.num_outputs):
                old_t, new_t = st.op.output(k), new.output(k)
                # Readers may still hold an older version that already maps to old_t.
                for key, value in vmap.items():
                    if value == old_t:
                        vmap[key] = new_t
                vmap[old_t] = new_t
            st.op = new


def _check_scope(primitive: str, scope: Any) -> None:
    check_scope(primitive, scope)


def _stage_of_tensor(sch: Schedule, tensor: Any, primitive: str) -> Stage:
    if not isinstance(tensor, Tensor):
        raise ScheduleTypeError(f"{primitive}: expected a tensor, got {type(tensor).__name__}")
    return sch[tensor]


def _unique_name(sch: Schedule, base: str, scope: str) -> str:
    names = {st.op.name for st in sch.stages}
    while f"{base}.{scope}" in names:
        base += ".d"
    return f"{base}.{scope}"


def cache_read(sch: Schedule, tensor: Tensor, scope: str, readers: Any) -> Tensor:
    """Insert ``T.<scope>`` copying *tensor* right after its stage; *readers* read the copy."""
    stage = _stage_of_tensor(sch, tensor, "cache_read")
    _check_scope("cache_read", scope)
    reader_list = list(readers) if isinstance(readers, (list, tuple)) else [readers]
    if not reader_list:
        raise ScheduleError(f"cache_read: tensor '{tensor.name}': give at least one reader")
    current = stage.op.output(tensor.value_index)
    reader_stages = []
    for r in reader_list:
        rs = r if isinstance(r, Stage) else sch[r]
        if current not in rs.op.input_tensors:
            raise ScheduleError(f"cache_read: stage '{rs.name}' does not read '{tensor.name}'; readers "
                                f"must be stages that read it")
        if rs not in reader_stages:
            reader_stages.append(rs)
    base = stage.op.name if stage.op.num_outputs == 1 else f"{stage.op.name}.v{tensor.value_index}"
    axis = tuple(IterVar(Range(0, d), Var(f"ax{k}", d.dtype), IterVarType.DataPar)
                 for k, d in enumerate(current.shape))
    body = ProducerLoad(current, tuple(iv.var for iv in axis))
    cache_op = ComputeOp(_unique_name(sch, base, scope), "", {}, axis, (body,))
    cache = cache_op.output(0)
    # -- all checks done; state changes only below --
    vmap: dict[Tensor, Tensor] = {}
    for rs in reader_stages:
        new = rs.op.replace_inputs({current: cache})
        for k in range(rs.op.num_outputs):
            vmap[rs.op.output(k)] = new.output(k)
        rs.op = new
    replace_dataflow(sch.stages, vmap)
    cache_stage = Stage(cache_op, sch)
    cache_stage.scope = scope
    sch.stages.insert(sch.stages.index(stage) + 1, cache_stage)
    sch.stage_map[cache_op] = cache_stage
    return cache


def cache_write(sch: Schedule, tensors: Tensor | Sequence[Tensor], scope: str) -> Any:
    """Compute *tensors* into ``T.<scope>`` laid out by the stage's leaves; ``T`` copies it out.

    The cache gets one axis per non-reduction leaf (``<leaf>.c``); the original stage is reset
    to its root axes and reads the cache at the leaves' values.
    """
    tensor_list = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
    if not tensor_list:
        raise ScheduleError("cache_write: give at least one tensor")
    stage = _stage_of_tensor(sch, tensor_list[0], "cache_write")
    _check_scope("cache_write", scope)
    op = stage.op
    if not isinstance(op, ComputeOp):
        raise ScheduleError(f"cache_write: stage '{stage.name}' is not a compute; only compute stages "
                            "can be cached")
    for t in tensor_list:
        if _stage_of_tensor(sch, t, "cache_write") is not stage:
            raise ScheduleError(f"cache_write: tensors '{tensor_list[0].name}' and '{t.name}' come from "
                                "different operations; cache the outputs of one operation")
    if len(tensor_list) != op.num_outputs:
        raise ScheduleError(f"cache_write: stage '{stage.name}' has {op.num_outputs} outputs; pass all "
                            f"of them as a list (got {len(tensor_list)})")
    for other in sch.stages:
        if other.attach_type == AttachType.Scope and other.attach_stage is stage:
            raise ScheduleError(f"cache_write: stage '{stage.name}' is the compute_at target of "
                                f"'{other.name}'; call cache_write before compute_at")
    reduce_axes = set(op.reduce_axis)
    for iv in stage.leaf_iter_vars:
        if iv not in reduce_axes and iv.iter_type != IterVarType.DataPar:
            raise ScheduleError(f"cache_write: stage '{stage.name}', IterVar '{iv.name}' is "
                                f"{iv.iter_type.name}; the cache can only be laid out along "
                                "data-parallel leaves (split or fuse reduction axes after cache_write)")
    cache_op, new_op = _relayout(stage, op, scope, _unique_name(sch, op.name, scope))
    # -- all checks done; state changes only below --
    replace_dataflow(sch.stages, {op.output(k): new_op.output(k) for k in range(op.num_outputs)})
    stage.op = new_op
    stage.all_iter_vars = list(new_op.root_iter_vars)
    stage.leaf_iter_vars = list(stage.all_iter_vars)
    stage.relations = []
    stage.iter_var_attrs = {}
    cache_stage = Stage(cache_op, sch)
    cache_stage.scope = scope
    sch.stages.insert(sch.stages.index(stage), cache_stage)
    sch.stage_map[cache_op] = cache_stage
    outputs = [cache_op.output(k) for k in range(cache_op.num_outputs)]
    return outputs if isinstance(tensors, (list, tuple)) else outputs[0]


def _relayout(stage: Stage, op: ComputeOp, scope: str, name: str) -> tuple[ComputeOp, ComputeOp]:
    """The cache operation over the stage's leaves, and the original rewritten to read it."""
    reduce_axes = set(op.reduce_axis)
    dom_map: dict[IterVar, Range] = {iv: iv.dom for iv in op.axis}  # type: ignore[misc]
    pass_down_domain(stage, dom_map, allow_missing=True)
    new_axis: list[IterVar] = []
    value_map: dict[IterVar, Expr] = {}
    to_new_var: dict[Var, Expr] = {}
    for iv in stage.leaf_iter_vars:
        if iv in reduce_axes:
            continue
        dom = dom_map[iv]
        new_iv = IterVar(dom, Var(f"{iv.name}.c", iv.var.dtype), iv.iter_type)
        new_axis.append(new_iv)
        if arith.value_of(dom.extent) == 1:
            value_map[iv] = dom.min
        else:
            value_map[iv] = iv.var
            to_new_var[iv.var] = new_iv.var
    pass_up_index(stage, dom_map, value_map, allow_missing=True)
    flags = pass_up_bound_check(stage, dom_map)
    predicates = [arith.lt(value_map[iv] - dom_map[iv].min, dom_map[iv].extent)
                  for iv in stage.all_iter_vars
                  if iv not in reduce_axes and flags.get(iv) and iv in value_map]
    root_values = {iv.var: value_map[iv] for iv in op.axis if iv in value_map}
    body = []
    for b in op.body:
        e = _guard(substitute(b, root_values), predicates)
        body.append(substitute(e, to_new_var))
    cache_op = ComputeOp(name, op.tag, op.attrs, new_axis, body)
    index_map: dict[IterVar, Expr] = {iv: iv.var for iv in op.axis}
    pass_down_index(stage, dom_map, index_map, allow_missing=True)
    args = tuple(index_map[iv] for iv in stage.leaf_iter_vars if iv not in reduce_axes)
    reads = [cache_op.output(k)(*args) for k in range(cache_op.num_outputs)]
    return cache_op, ComputeOp(op.name, op.tag, op.attrs, op.axis, reads)


def _guard(body: Expr, predicates: list[Expr]) -> Expr:
    """*body* computed only where every predicate holds (zero elsewhere)."""
    if not predicates:
        return body
    cond = arith.all(*predicates)
    if isinstance(body, Reduce):
        return Reduce(body.combiner, body.source, body.axis, arith.logical_and(body.condition, cond),
                      body.value_index, body.init)
    return arith.if_then_else(cond, body, arith.const(0, body.dtype))

