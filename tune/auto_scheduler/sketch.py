"""Schedules without a template: a configuration space generated from the compute DAG, searched
by the same tuners (the idea of TVM's auto-scheduler sketches, as autotvm knobs).

For the output stage (each output's spatial axes tiled in two; a reduction's in three, Ansor's
SSRSRS: the parallel tiles, their middle loops, the register tile, with the first reduction
axis split in two around the middle loops): the tile sizes; whether the reduction accumulates
in a ``local`` cache (the accumulator tile, attached at the parallel tile, whose innermost
level is the register tile: its rows unrolled, its last axis vectorized); whether the
innermost axis is vectorized; how many outer tile loops are fused into the parallel loop; for a
reduction, ``auto_unroll_max_step`` on that loop (0, 16 or 64, with ``unroll_explicit``). An
element-wise output of a reduction of its own
shape (matmul + add, conv2d + bias + relu: the stages between read
it at their own index and are inlined) is tiled the same way, the reduction itself being the
accumulator tile computed at the output's tile (``cache`` is then 1 in every configuration). For
every other stage:
an injective stage is inlined, computed at the output's tile, or computed at the root
(parallel, vectorized); a reduction is computed at one of the output's outer loops, its
reduction split into 8 or 16 partial results side by side (rfactor) or not. An input the
reduction reads along its last axis in one dimension and along the reduction in another (B
of a matmul, a dense layer's weights) may be copied once in panels of the register tile's
columns (``pack_<name>``; never for an input whose elements are each read fewer than 4
times; otherwise always, if the computation lists it in its ``layout_free_placeholders``
attribute, as TVM's tutorial marks B), so that the innermost loop reads it contiguously. Configurations
the backend would choke on (a register tile of more than 512 elements, an accumulator tile of
more than 16384, a vector loop of more than 1024 lanes, of a reduction's tile with fewer than
8 where the axis has 8, or reading an unpacked input with a stride, a parallel loop of fewer
iterations than cores where the tiles allow as many) are rejected before building. A register
tile may instead be vectorized along another axis (``vector_axis``): each input it reads with
that axis' variable in a dimension other than its last is then copied at the parallel loop
with that dimension innermost (TVM's NCHWc filters, a transposed operand), and the tile is
stored with that axis innermost. A reduction that reads an input with a stride along its
columns and too few times to pack it (a dense layer of batch 1: a matrix-vector product) may
instead run its vectors along the reduction (``reduce_lanes``: 8 or 16 partial sums side by
side, rfactor, stored lanes innermost, summed at the output's parallel tile).

``create(name, args)`` makes the task; ``apply_best(task, log)`` the best schedule found.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from bound.operation.access import body_reads
from schedule import PlaceholderOp, Tensor, arith, create_schedule
from schedule.ir.functor import free_vars
from schedule.operation.compute import ComputeOp
from schedule.schedule.auto_inline import is_injective
from tune.autotvm.history import ApplyHistoryBest
from tune.autotvm.space import ConfigEntity, InstantiationError
from tune.autotvm.task import Task, _Using, get_config, template

#: Configurations whose parallel loop has fewer iterations than this, where the tiles would
#: give as many, are rejected.
CORES = os.cpu_count() or 1
#: Register tiles (the innermost level of a reduction's tiles, when it accumulates in a cache)
#: of more elements are rejected.
MAX_REGISTER_TILE = 512
#: Accumulator tiles (the cache of a reduction, computed at the parallel loop's tile) of more
#: elements are rejected (64 KiB of float32 on the stack of each thread).
MAX_LOCAL_TILE = 16384
#: The choices of ``auto_unroll_max_step`` on the parallel loop of a reduction: Ansor's for CPUs
#: but 512, whose explicit unrolling of a 4-level tile took 87 s to lower and compile (64: 0.4 s).
AUTO_UNROLL = [0, 16, 64]
#: Panels of an input that each of its elements is read fewer times from are rejected: the copy
#: costs as much as the reads it makes contiguous (a dense layer of batch 1 reads its weights once).
MIN_PANEL_REUSE = 4
#: Vector loops of more lanes are rejected.
MAX_VECTOR = 1024
#: A reduction's vector loops of fewer lanes (a 256-bit vector of float32) are rejected where
#: the axis has as many: they leave most of each vector register empty.
MIN_VECTOR = 8
#: Configurations whose inlining puts more tensor reads into one expression are rejected (each
#: inlined stencil multiplies them: 16 three-point stencils inlined in a row make 43 million).
MAX_INLINED_READS = 1024
#: Stages given placement knobs, the nearest to the output first; deeper ones are computed at
#: the root (a chain of n stencils would otherwise make a space of 3^n configurations).
MAX_PLACED = 16


def _extent(iv: Any) -> int:
    return int(iv.dom.extent.value)


def _outputs(args: Sequence[Any]) -> list[Tensor]:
    return [a for a in args if isinstance(a, Tensor) and not isinstance(a.op, PlaceholderOp)]


def _stages(outputs: Sequence[Tensor]) -> list[Any]:
    """The compute operations outputs depend on, outputs last (a topological order)."""
    order: list[Any] = []
    seen: set[int] = set()
    stack: list[tuple[Any, bool]] = [(t.op, False) for t in outputs]
    while stack:
        op, done = stack.pop()
        if done:
            order.append(op)
            continue
        if id(op) in seen or isinstance(op, PlaceholderOp):
            continue
        seen.add(id(op))
        stack.append((op, True))
        stack.extend((t.op, False) for t in op.input_tensors)
    return order


def _consumers(stages: Sequence[Any]) -> dict[int, list[Any]]:
    """The stages that read each stage, by its id."""
    out: dict[int, list[Any]] = {id(op): [] for op in stages}
    for op in stages:
        for t in {id(t.op): t for t in op.input_tensors}.values():
            if id(t.op) in out:
                out[id(t.op)].append(op)
    return out


def _read_pointwise(producer: Any, consumers: Sequence[Any]) -> bool:
    """Whether every consumer is a computation of the producer's shape that reads it only at
    its own index (``P[i, j]`` in the body of ``C[i, j]``), unconditionally."""
    t = producer.output(0)
    for op in consumers:
        if not isinstance(op, ComputeOp) or op.reduce_axis or [_extent(iv) for iv in op.axis] != [
                _extent(iv) for iv in producer.axis]:
            return False
        axes = [iv.var for iv in op.axis]
        for acc in body_reads(op.body, [t]):
            if len(acc.indices) != len(axes) or any(i is not v for i, v in zip(acc.indices, axes)):
                return False
            if arith.value_of(acc.condition) != 1:
                return False
    return True


def sketch(args: Sequence[Any]) -> tuple[Any, list[Any]]:
    """The schedule of *args*' computation under the current configuration (see the module)."""
    cfg = get_config()
    outputs = _outputs(args)
    if len(outputs) != 1 or not isinstance(outputs[0].op, ComputeOp):
        raise InstantiationError("auto_scheduler: one computed output is supported")
    out = outputs[0]
    s = create_schedule(out.op)
    op = out.op
    stages = _stages([out])
    consumers = _consumers(stages)
    fused_reduction = None if op.reduce_axis else _fused_reduction(op, stages, consumers)
    spatial = list(op.axis)
    reduce = list(op.reduce_axis or (fused_reduction.reduce_axis if fused_reduction is not None else ()))

    # the knobs of the output stage (all defined first: the space has the same knobs whatever
    # the configuration)
    # a reduction's spatial axes are split in three (Ansor's SSRSRS: the parallel tiles, their
    # middle loops between the two levels of the reduction, the register tile); others in two
    levels = 3 if reduce else 2
    for i, iv in enumerate(spatial):
        cfg.define_split(f"tile_{i}", iv, num_outputs=levels)
    if reduce:
        cfg.define_split("tile_k", reduce[0], num_outputs=2)
    # a reduction under an element-wise output is always tiled with it (Ansor's multi-level
    # tiling with fusion); left to be placed as any other stage, its loops stay untiled
    cfg.define_knob("cache", [1] if fused_reduction is not None else [0, 1] if reduce else [0])
    cfg.define_knob("vectorize", [1, 0])
    cfg.define_knob("parallel_depth", [1, 2] if len(spatial) > 1 else [1])
    cfg.define_knob("auto_unroll", AUTO_UNROLL if reduce else [0])
    reducer = op if op.reduce_axis else fused_reduction
    packable = _packable(reducer) if reducer is not None else {}
    if packable:
        cfg.define_knob("vector_axis", [len(spatial) - 1, *sorted(packable)])
    panels = _panel_inputs(reducer) if reducer is not None else []
    marked = reducer.attrs.get("layout_free_placeholders", []) if reducer is not None else []
    free = {id(t.op) for t in marked if hasattr(t, "op")}
    firsts = {"cache": 1 if fused_reduction is not None else 0, "auto_unroll": 0,
              **({"vector_axis": len(spatial) - 1} if packable else {})}  # each knob's first choice
    for tensor, _ in panels:  # an input the computation marks layout-free is always packed,
        # one whose elements are each read only a few times never
        choices = [0] if _reuse(reducer, tensor) < MIN_PANEL_REUSE else [1] if id(tensor.op) in free else [0, 1]
        cfg.define_knob(f"pack_{tensor.name}", choices)
        firsts[f"pack_{tensor.name}"] = choices[0]
    # an input the reduction reads with a stride along its columns and too few times to pack
    # (a dense layer of batch 1): its vectors run along the reduction instead, in partial sums
    along_reduction = bool(reduce) and _extent(reduce[0]) >= 64 and any(
        _reuse(reducer, t) < MIN_PANEL_REUSE for t, _ in panels)
    if along_reduction:  # (no knob where there is no choice)
        cfg.define_knob("reduce_lanes", [0, 8, 16])
    if along_reduction and cfg["reduce_lanes"].val:
        return _lanes_along_reduction(s, out, reducer, stages, cfg, firsts, args)
    sizes = [cfg[f"tile_{i}"].size for i in range(len(spatial))]
    tiles = [math.prod(size[1:]) for size in sizes]  # the parallel loops' tile
    inners = [size[-1] for size in sizes]  # the register tile (the whole tile with two levels)
    cached = bool(cfg["cache"].val)
    vectorize = bool(cfg["vectorize"].val)
    vector_axis = cfg["vector_axis"].val if packable else len(spatial) - 1
    packing = cached and vector_axis != len(spatial) - 1
    if packing and vectorize and inners[vector_axis] > MAX_VECTOR:
        cfg.raise_error(f"vector loop of {inners[vector_axis]} lanes")
    if vectorize and inners[-1] > MAX_VECTOR:
        cfg.raise_error(f"vector loop of {inners[-1]} lanes")
    lane_axis = vector_axis if packing else len(spatial) - 1
    if reduce and vectorize and inners[lane_axis] < min(MIN_VECTOR, _extent(spatial[lane_axis])):
        cfg.raise_error(f"vector loop of {inners[lane_axis]} lanes where {MIN_VECTOR} fit")
    if cached and math.prod(inners) > MAX_REGISTER_TILE:
        cfg.raise_error(f"register tile of {math.prod(inners)} elements")
    if cached and math.prod(tiles) > MAX_LOCAL_TILE:
        cfg.raise_error(f"accumulator tile of {math.prod(tiles)} elements")
    packed_panels = [(t, d) for t, d in panels if cfg[f"pack_{t.name}"].val]
    for tensor, dim in panels:
        if (tensor, dim) in packed_panels and (_extent(spatial[-1]) % inners[-1] or
                                               not 1 < inners[-1] < _extent(spatial[-1])):
            cfg.raise_error(f"panels of {inners[-1]} columns of {tensor.name}: not a division in panels")
        if vectorize and (cached or op.reduce_axis) and not packing and dim != len(tensor.shape) - 1 \
                and (tensor, dim) not in packed_panels:
            cfg.raise_error(f"vector loop reading {tensor.name} with a stride (pack it in panels)")
    if isinstance(cfg, ConfigEntity) and not cfg.valid():  # not built: the rest would only fail
        raise InstantiationError("; ".join(cfg.errors))
    if fused_reduction is not None:
        local = fused_reduction.output(0) if cached else None
    else:
        local = s.cache_write(out, "local") if cached else None
    computing = local if cached else out  # the stage with the reduction
    tile_order = list(range(len(spatial)))  # the register tile's axes, the vector axis last
    if packing:
        tile_order = [k for k in tile_order if k != vector_axis] + [vector_axis]
        s[local].transform_layout(_permutation(tile_order))

    outer, middle, inner = [], [], []
    for i, iv in enumerate(s[out].op.axis):
        o, rest = s[out].split(iv, factor=tiles[i])
        m, n = s[out].split(rest, factor=inners[i]) if levels == 3 else (None, rest)
        outer.append(o)
        middle += [m] if m is not None else []
        inner.append(n)
    reduce_axes = list(s[computing].op.reduce_axis)
    ko = ki = None
    if reduce_axes:
        ko, ki = cfg["tile_k"].apply(s, computing, reduce_axes[0])
    reduce_inner = [ki, *reduce_axes[1:]] if reduce_axes else []
    if cached:  # the epilogue
        s[out].reorder(*outer, *middle, *inner)
    else:  # SSRSRS in the output itself: outer, ko, middle, the rest of the reduction, inner
        s[out].reorder(*outer, *([ko] if ko is not None else []), *middle, *reduce_inner, *inner)
    if vectorize:
        s[out].vectorize(inner[-1])
    depth = min(cfg["parallel_depth"].val, len(outer))
    _check_parallel(cfg, spatial, tiles, depth)
    fused = s[out].fuse(*outer[:depth]) if depth > 1 else outer[0]
    s[out].parallel(fused)
    if cfg["auto_unroll"].val:  # TVM's UnrollLoop writes out the small loops under it
        s[out].pragma(fused, "auto_unroll_max_step", cfg["auto_unroll"].val)
        s[out].pragma(fused, "unroll_explicit", True)
    tile_axis = [fused, *outer[depth:]][-1]
    # where a producer can be computed: after outer loop p (those fused into the parallel loop
    # are one loop); the same choices in every configuration
    anchors = [fused if p < depth else outer[p] for p in range(len(outer))]
    if cached:  # the accumulator tile: ko, its middle loops, the rest of the reduction, then
        # the register tile (rows unrolled, the vector axis last)
        s[local].compute_at(s[out], tile_axis)
        lmiddle, linner = [], []
        for k in tile_order:
            m, n = s[local].split(s[local].op.axis[k], factor=inners[k])
            lmiddle.append(m)
            linner.append(n)
        s[local].reorder(ko, *lmiddle, *reduce_inner, *linner)
        for iv, k in zip(linner[:-1], tile_order[:-1]):
            if inners[k] > 1:
                s[local].unroll(iv)
        if vectorize:
            s[local].vectorize(linner[-1])
    if packing:  # each input read along the vector axis, copied with that dimension innermost
        for tensor, dim in packable[vector_axis]:
            packed = s.cache_read(tensor, "global", [s[local].op])
            order = [d for d in range(len(tensor.shape)) if d != dim] + [dim]
            paxes = s[packed].transform_layout(_permutation(order))
            s[packed].compute_at(s[out], fused)
            s[packed].vectorize(paxes[-1])

    # the other stages, consumers first. A stage is placed no deeper than its shallowest
    # consumer (positions: -1 the root, p after outer loop p; an inlined stage takes its
    # consumers' place)
    position: dict[int, int] = {id(out.op): len(outer) - 1}
    placed = 0
    inlined: set[int] = set()
    for producer in reversed(stages[:-1]):
        name = producer.name
        limit = min(position[id(op)] for op in consumers[id(producer)])
        if is_injective(producer):
            if _read_pointwise(producer, consumers[id(producer)]):
                place = "inline"  # nothing is computed twice and no condition enters a loop
            elif placed < MAX_PLACED:
                placed += 1
                cfg.define_knob(f"place_{name}", ["inline", "tile", "root"])
                place = cfg[f"place_{name}"].val
            else:
                place = "root"
            if place == "inline":
                s[producer].compute_inline()
                inlined.add(id(producer))
                position[id(producer)] = limit
                continue
            if place == "tile" and limit >= 0:
                s[producer].compute_at(s[out], anchors[limit])
                position[id(producer)] = limit
            else:
                s[producer].parallel(s[producer].op.axis[0])
                position[id(producer)] = -1
            if len(s[producer].op.axis) > 1 or position[id(producer)] >= 0:
                s[producer].vectorize(s[producer].op.axis[-1])
            continue
        if producer is fused_reduction:  # the accumulator tile, placed above
            position[id(producer)] = len(outer) - 1
            continue
        if placed < MAX_PLACED:
            placed += 1
            cfg.define_knob(f"at_{name}", list(range(len(anchors))))
            red = list(producer.reduce_axis)
            cfg.define_knob(f"rfactor_{name}", [0, 8, 16] if red and _extent(red[0]) >= 64 else [0])
            at, lanes = min(cfg[f"at_{name}"].val, limit), cfg[f"rfactor_{name}"].val
        else:
            at, lanes = -1, 0
        position[id(producer)] = at
        rf = None
        if lanes:
            _, kin = s[producer].split(s[producer].op.reduce_axis[0], factor=lanes)
            rf = s.rfactor(producer.output(0), kin)
        for stage in (producer, rf):
            if stage is not None and at >= 0:
                s[stage].compute_at(s[out], anchors[at])
        if rf is not None:
            lane, *rest = s[rf].op.axis
            s[rf].reorder(*rest, *s[rf].op.reduce_axis, lane)
            s[rf].vectorize(lane)
    if (reads := _inlined_reads(stages, inlined)) > MAX_INLINED_READS:
        cfg.raise_error(f"inlining makes an expression of {reads} tensor reads")
    copied = {id(t.op) for t, _ in packable.get(vector_axis, [])} if packing else set()
    for tensor, dim in packed_panels if cfg.valid() else []:  # copied once, in panels of the register tile's columns
        if id(tensor.op) in copied:
            continue
        readers = [st for st in s.stages if getattr(st.op, "reduce_axis", ()) and
                   any(t.op is tensor.op for t in st.op.input_tensors)]
        panel = s.cache_read(tensor, "global", readers)
        paxes = s[panel].transform_layout(_panels(dim, inners[-1]))
        s[panel].parallel(paxes[0])
        s[panel].vectorize(paxes[-1])
    return s, list(args)


def _check_parallel(cfg: Any, axes: Sequence[Any], tiles: Sequence[int], depth: int) -> None:
    """Rejects a parallel loop (the first *depth* tile loops) of fewer iterations than cores
    where the tiles of *axes* would give as many."""
    counts = [-(-_extent(iv) // t) for iv, t in zip(axes, tiles)]
    if math.prod(counts[:depth]) < CORES <= math.prod(counts):
        cfg.raise_error(f"parallel loop of {math.prod(counts[:depth])} iterations for {CORES} cores")


def _lanes_along_reduction(s: Any, out: Tensor, reducer: Any, stages: Sequence[Any], cfg: Any,
                           firsts: dict[str, Any], args: Sequence[Any]) -> tuple[Any, list[Any]]:
    """The reduction split into ``reduce_lanes`` partial sums side by side (rfactor), the lanes
    innermost and vectorized, so that every input is read contiguously along the reduction;
    the partial sums and their total computed at the output's parallel tile, the element-wise
    stages between inlined (a matrix-vector product's schedule). The tile sizes and
    ``parallel_depth`` apply; the knobs of the other schedule must keep their first choice
    (the space has no duplicates)."""
    lanes = cfg["reduce_lanes"].val
    if cfg["tile_k"].size[-1] != 1 or any(cfg[k].val != v for k, v in firsts.items()):
        cfg.raise_error("reduce_lanes: the knobs of the tiled schedule keep their first choice")
    sizes = [cfg[f"tile_{i}"].size for i in range(len(out.op.axis))]
    tiles = [math.prod(size[1:]) for size in sizes]
    if cfg["vectorize"].val and tiles[-1] < MIN_VECTOR:
        cfg.raise_error(f"vector loop of {tiles[-1]} lanes where {MIN_VECTOR} fit")
    depth = min(cfg["parallel_depth"].val, len(tiles))
    _check_parallel(cfg, out.op.axis, tiles, depth)
    if isinstance(cfg, ConfigEntity) and not cfg.valid():
        raise InstantiationError("; ".join(cfg.errors))
    for producer in stages[:-1]:  # the element-wise stages (the bias, the relu) inlined
        if producer is not reducer and is_injective(producer):
            s[producer].compute_inline()
    total = reducer.output(0)
    _, kl = s[total].split(s[total].op.reduce_axis[0], factor=lanes)
    partial = s.rfactor(total, kl)
    outer, inner = zip(*(s[out].split(iv, factor=t) for iv, t in zip(s[out].op.axis, tiles)))
    s[out].reorder(*outer, *inner)
    fused = s[out].fuse(*outer[:depth]) if depth > 1 else outer[0]
    s[out].parallel(fused)
    if cfg["vectorize"].val:
        s[out].vectorize(inner[-1])
    for stage in (total, partial):
        if stage.op is not out.op:
            s[stage].compute_at(s[out], [fused, *outer[depth:]][-1])
    # the partial sums stored lanes innermost: each vector of them is one contiguous load
    axes = s[partial].transform_layout(_permutation([*range(1, len(s[partial].op.axis)), 0]))
    *rest, lane = axes
    s[partial].reorder(*rest, *s[partial].op.reduce_axis, lane)
    s[partial].vectorize(lane)
    return s, list(args)


def _permutation(order: list[int]) -> Any:
    """The layout mapping that stores dimension ``order[k]`` at position k."""
    return lambda *ax: [ax[d] for d in order]


def _panels(dim: int, width: int) -> Any:
    """The layout mapping that stores dimension *dim* in panels of *width*: the panel first,
    the other dimensions in order, the position in the panel last."""
    return lambda *ax: [ax[dim] // width, *(a for d, a in enumerate(ax) if d != dim), ax[dim] % width]


def _packable(reducer: Any) -> dict[int, list[tuple[Tensor, int]]]:
    """For each spatial axis but the last of *reducer*: the inputs (placeholders) it reads with
    that axis' variable alone in a dimension other than their last, and that dimension (a
    vector along the axis would load them with a stride: packed, it loads them contiguously)."""
    out: dict[int, list[tuple[Tensor, int]]] = {}
    axes = [iv.var for iv in reducer.axis]
    inputs = [t for t in reducer.input_tensors if isinstance(t.op, PlaceholderOp)]
    for acc in body_reads(reducer.body, inputs):
        for dim, index in enumerate(acc.indices[:-1]):
            for k, v in enumerate(axes[:-1]):
                if index is v and (acc.tensor, dim) not in out.get(k, []):
                    out.setdefault(k, []).append((acc.tensor, dim))
    return out


def _reuse(reducer: Any, tensor: Tensor) -> int:
    """How many times *reducer* reads each element of *tensor*: the product of its spatial
    axes that no index of *tensor* uses."""
    used = {id(v) for acc in body_reads(reducer.body, [tensor]) for v in free_vars(list(acc.indices))}
    return math.prod(_extent(iv) for iv in reducer.axis if id(iv.var) not in used)


def _panel_inputs(reducer: Any) -> list[tuple[Tensor, int]]:
    """The inputs (placeholders) *reducer* reads with its last spatial axis' variable alone in
    one dimension and a reduction variable in another (B of a matmul, the weights of a dense),
    with that dimension: packed in panels of the register tile's columns, each panel is read
    contiguously along the reduction."""
    out: list[tuple[Tensor, int]] = []
    last = reducer.axis[-1].var
    reduce_vars = {id(iv.var) for iv in reducer.reduce_axis}
    inputs = [t for t in reducer.input_tensors if isinstance(t.op, PlaceholderOp)]
    for acc in body_reads(reducer.body, inputs):
        dims = [d for d, index in enumerate(acc.indices) if index is last]
        if len(dims) == 1 and any(id(index) in reduce_vars for index in acc.indices) and len(acc.indices) > 1 \
                and all(t is not acc.tensor for t, _ in out):
            out.append((acc.tensor, dims[0]))
    return out


def _fused_reduction(op: Any, stages: Sequence[Any], consumers: dict[int, list[Any]]) -> Any:
    """The reduction of *op*'s shape that *op* reads through element-wise stages each reading
    their producer at their own index (so that they are inlined), if there is one."""
    chain = [op]
    while True:
        inputs = [t.op for t in chain[-1].input_tensors if isinstance(t.op, ComputeOp)]
        for producer in inputs:
            if [_extent(iv) for iv in producer.axis] != [_extent(iv) for iv in op.axis] \
                    or not _read_pointwise(producer, consumers[id(producer)]):
                continue
            if producer.reduce_axis:
                return producer if len(producer.body) == 1 else None
            if is_injective(producer):
                chain.append(producer)
                break
        else:
            return None


def _inlined_reads(stages: Sequence[Any], inlined: set[int]) -> int:
    """The most tensor reads one stage's expression holds once the *inlined* stages (by id)
    are substituted into it; *stages* in topological order."""
    weight: dict[int, int] = {}
    for op in stages:
        body = op.body if isinstance(op, ComputeOp) else ()
        weight[id(op)] = max(1, sum(weight[id(acc.tensor.op)] if id(acc.tensor.op) in inlined else 1
                                    for acc in body_reads(body, op.input_tensors)))
    return max(weight[id(op)] for op in stages if id(op) not in inlined)


def create(name: str, args: Sequence[Any], target: str = "c") -> Task:
    """The tuning task of the computation of *args* (inputs and one output, as ``build``
    takes them), registered as ``auto/<name>``."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"auto_scheduler.create: the name is a non-empty str, got {name!r}")
    args = list(args)
    if not all(isinstance(a, Tensor) for a in args) or len(_outputs(args)) != 1:
        raise ValueError("auto_scheduler.create: args are the tensors of one computation: its inputs and one output")
    template(f"auto/{name}")(lambda: sketch(args))
    task = Task(f"auto/{name}", (), target)
    task.config_space  # noqa: B018 - collected now
    return task


def apply_best(task: Task, log: Any) -> tuple[Any, list[Any]]:
    """The schedule and arguments of *task*'s best configuration in *log*.

    :raises ValueError: if the log has no successful trial of the task.
    """
    best = ApplyHistoryBest(log).best_by_workload.get(task.workload)
    if best is None:
        raise ValueError(f"auto_scheduler: no successful trial of {task.name} in the log")
    with _Using(best[0]):
        return task.func()
