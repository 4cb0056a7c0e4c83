"""TVM's layout rewrite of a loop state (``ComputeDAG.apply_steps_from_state(state,
layout_rewrite=...)``): an input a computation marks ``layout_free_placeholders`` (a matmul's
weights) is laid out in the order its reader's tiled loops visit it, one dimension per loop
over one of its axes, extents from the loops' bounds.

- ``REWRITE_FOR_PRE_TRANSFORMED``: the input itself takes the new shape; the caller passes
  it already transformed.
- ``INSERT_TRANSFORM_STAGE``: a stage ``auto_scheduler_layout_transform`` copies the input
  into the new layout, fused and parallel as TVM schedules it; the arguments are unchanged.

The reader then loads element ``(index // d) % extent`` of each new dimension, where *d* is
the product of the later dimensions over the same axis. Loops are matched to the input's
dimensions by the reader's axes themselves (TVM matches names).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import schedule as te
from bound.operation.access import body_reads
from schedule import PlaceholderOp, Tensor
from schedule.ir.expr import IntImm, Var
from schedule.operation.compute import ComputeOp, reindex_tensor
from tune.auto_scheduler.loop_state import State
from tune.auto_scheduler.steps import Step

NO_REWRITE, INSERT_TRANSFORM_STAGE, REWRITE_FOR_PRE_TRANSFORMED = 0, 1, 2
_KEY = "layout_free_placeholders"


def _free_placeholders(op: Any) -> list[Tensor]:
    attrs = getattr(op, "attrs", None) or {}
    return [t for t in attrs.get(_KEY, ()) if isinstance(t, Tensor) and isinstance(t.op, PlaceholderOp)]


def has_layout_free(ops: Sequence[Any]) -> bool:
    """Whether an operation of *ops* marks an input free to lay out."""
    return any(isinstance(op, ComputeOp) and _free_placeholders(op) for op in ops)


def _access(op: Any, tensor: Tensor) -> list[str | None] | None:
    """The root axis name indexing each dimension of *tensor* in *op*'s read of it (None for
    a constant 0); None when a read is not by plain axes."""
    for read in body_reads(op.body, [tensor]):
        dims: list[str | None] = []
        for e in read.indices:
            if isinstance(e, Var):
                dims.append(e.name)
            elif getattr(e, "value", None) == 0:
                dims.append(None)
            else:
                return None
        return dims
    return None


def _root_name(name: str, roots: set[str]) -> str:
    while name not in roots and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _leaves(iters: Sequence[Any]) -> list[Any]:
    """*iters* with each fused iterator replaced by the iterators it fused."""
    out: list[Any] = []
    stack = list(reversed(iters))
    while stack:
        it = stack.pop()
        if it.orig_iters:
            stack.extend(reversed(it.orig_iters))
        else:
            out.append(it)
    return out


def _extent(it: Any) -> int | None:
    """The loop's constant extent (1 for a loop bound inference left without a range, as in
    TVM), or None for a symbolic one."""
    if it.range is None:
        return 1
    value = getattr(it.range.extent, "value", None)
    return value if isinstance(value, int) else None


def new_layout(state: State, stage_id: int, dims: Sequence[str | None]) -> list[tuple[int, int]] | None:
    """The new layout of an input read at *dims* by stage *stage_id* (its state's bounds
    inferred): (input dimension, extent) per new dimension, outermost first; None when a loop
    over the input has a symbolic extent (the input then keeps its layout)."""
    stage = state.stages[stage_id]
    roots = {iv.var.name for iv in (*stage.op.axis, *stage.op.reduce_axis)}
    prefix: list[Any] = []
    attach = [(t, i) for t in range(len(state.stages)) for i in range(len(state.stages[t].iters))
              if stage_id in state.attached_stages(t, i)]
    if attach:
        target, pos = attach[0]
        prefix = _leaves(state.stages[target].iters[:pos + 1])
    own = _leaves(stage.iters)
    names = [_root_name(it.name, roots) for it in own]
    out = []
    for k, it in enumerate([*prefix, *own]):
        # a loop of the stage computed around this one stands for this one's loop at its position
        j = k if k < len(prefix) else k - len(prefix)
        if j < len(names) and names[j] in dims:
            extent = _extent(it)
            if extent is None:
                return None
            out.append((dims.index(names[j]), extent))
    return out


def _reindex(layout: Sequence[tuple[int, int]]) -> Any:
    """The loads of the new layout, from the indices of the old."""
    def indices(old: Sequence[Any]) -> list[Any]:
        divisor = [1] * len(old)
        new: list[Any] = [None] * len(layout)
        for k in reversed(range(len(layout))):
            dim, extent = layout[k]
            new[k] = te.floormod(te.floordiv(old[dim], divisor[dim]), extent)
            divisor[dim] *= extent
        return new
    return indices


def _transform_stage(placeholder: Tensor, layout: Sequence[tuple[int, int]]) -> Tensor:
    """A compute copying *placeholder* into *layout* (zero past its end, where tiles overhang)."""
    shape = [extent for _, extent in layout]
    stride = [1] * len(layout)
    running: dict[int, int] = {}
    for k in reversed(range(len(layout))):
        dim, extent = layout[k]
        stride[k] = running.get(dim, 1)
        running[dim] = stride[k] * extent
    old_shape = [int(getattr(d, "value", d)) for d in placeholder.shape]

    def body(*idx: Any) -> Any:
        access = []
        for d in range(len(old_shape)):
            terms = [idx[k] * stride[k] for k in range(len(layout)) if layout[k][0] == d]
            access.append(sum(terms[1:], terms[0]) if terms else 0)
        load = placeholder(*access)
        overhang = [d for d in range(len(old_shape)) if running.get(d, 1) > old_shape[d]]
        if not overhang:
            return load
        inside = te.all(*(access[d] < old_shape[d] for d in overhang))
        return te.if_then_else(inside, load, te.const(0, placeholder.dtype))
    return te.compute(shape, body, name="auto_scheduler_layout_transform")


def rewrite_layout(dag: Any, steps: Sequence[Step], option: int, make_dag: Callable[[list[Tensor]], Any]
                   ) -> tuple[Any, list[Step]]:
    """The DAG (made by *make_dag* from its tensors) with the layout-free inputs of *steps*'
    state rewritten, and the steps to replay on it."""
    state = dag.infer_bound_from_state(State(dag, [], list(steps)))
    tensors, ops = list(dag.tensors), list(dag.ops)
    new_steps = list(steps)
    handled: set[Any] = set()
    for sid, stage in enumerate(state.stages):
        if not isinstance(stage.op, ComputeOp):
            continue
        for placeholder in _free_placeholders(stage.op):
            if placeholder.op in handled or placeholder not in stage.op.input_tensors:
                continue
            dims = _access(stage.op, placeholder)
            reader = next((op for op in ops if isinstance(op, ComputeOp) and placeholder in op.input_tensors), None)
            layout = new_layout(state, sid, dims) if dims is not None and reader is not None else None
            if layout is None or not all(isinstance(d, IntImm) for d in placeholder.shape):
                continue  # a symbolic shape keeps its layout
            handled.add(placeholder.op)
            if option == REWRITE_FOR_PRE_TRANSFORMED:
                new_input = te.placeholder([e for _, e in layout], dtype=placeholder.dtype, name=placeholder.op.name)
            else:
                new_input = _transform_stage(placeholder, layout)
            new_reader = reindex_tensor(reader, placeholder, new_input, _reindex(layout))
            vmap = {reader.output(k): new_reader.output(k) for k in range(reader.num_outputs)}
            if option == REWRITE_FOR_PRE_TRANSFORMED:
                vmap[placeholder] = new_input
            ops = _replaced(ops, vmap)
            tensors = [vmap.get(t, t) for t in tensors]
            dag = make_dag(tensors)
            if option == INSERT_TRANSFORM_STAGE:
                new_steps = _with_transform_stage(dag, new_input, new_steps)
    return dag, new_steps


def _replaced(ops: Sequence[Any], vmap: dict[Tensor, Tensor]) -> list[Any]:
    """*ops* (in dependence order) reading ``vmap[t]`` for each ``t``, the map grown with the
    outputs of each operation that changed."""
    out = []
    for op in ops:
        key = op.output(0)
        if key in vmap:
            out.append(vmap[key].op)
            continue
        new = op.replace_inputs(vmap) if not isinstance(op, PlaceholderOp) else op
        if new is not op:
            for k in range(op.num_outputs):
                vmap[op.output(k)] = new.output(k)
        out.append(new)
    return out


def _with_transform_stage(new_dag: Any, transform: Tensor, steps: Sequence[Step]) -> list[Step]:
    """*steps* renumbered for the transform stage in *new_dag*, then TVM's schedule of it:
    its outer two or three loops fused, and parallel."""
    at = next(k for k, op in enumerate(new_dag.ops) if op is transform.op)

    def up(i: int) -> int:
        return i + 1 if i >= at else i
    out = []
    for step in steps:
        f = list(step.fields)
        f[0] = up(f[0])
        if step.kind == "CA":
            f[1] = up(f[1])
        elif step.kind == "CHR":
            f[2] = tuple(up(r) for r in f[2])
        out.append(Step(step.kind, tuple(f)))
    dims = len(transform.shape)
    fused = 3 if dims >= 5 else 2 if dims >= 3 else 1
    if fused > 1:
        out.append(Step("FU", (at, tuple(range(fused)))))
    out.append(Step("AN", (at, 0, 3)))
    return out


__all__ = ["INSERT_TRANSFORM_STAGE", "NO_REWRITE", "REWRITE_FOR_PRE_TRANSFORMED", "has_layout_free", "new_layout",
           "rewrite_layout"]

