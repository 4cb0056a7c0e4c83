"""Graph rewrites that make reshapes move less data (op library graphs).

(a) ``reduce(reshape(X))`` whose reduced dimensions include some that the reshape leaves
    intact becomes ``reduce(reshape(reduce(X)))``: those dimensions are reduced before the
    reshape, which then moves fewer elements (group normalization: ``[B,H,W,C] ->
    [B,H,W,C/G,G]`` reduced over ``[1,2,3]`` becomes a reduction over H and W, a reshape of
    ``[B,C]`` and a reduction over C/G).
(b) ``reshape(f(reshape(X1), ..., broadcast(Y1), ...))`` where every reshaped operand has the
    outer reshape's shape becomes ``f(X1, ..., broadcast(reshape(broadcast(Y1))), ...)``: the
    broadcast operand is reshaped only along the reshape groups it varies in.

Rewrites repeat until no pattern matches, on the networkx graph of operations; each keeps
every value (reductions are split only for add, max, min and mul without an init value).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from schedule.ir import arith
from schedule.ir.expr import Expr, ProducerLoad
from schedule.ir.functor import ExprMutator
from schedule.operation.compute import ComputeOp, compute
from schedule.operation.graph import post_dfs_order, read_graph
from schedule.operation.tensor import Operation, Tensor
from schedule.xla import ops

_ELEMENTWISE = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "exponential", "log", "sqrt",
                "tanh", "negate", "abs", "copy", "select"}


@dataclass
class RewriteReport:
    """What :func:`optimize_reshapes` did."""

    reshape_elements_before: int
    reshape_elements_after: int
    largest_intermediate_before: int
    largest_intermediate_after: int
    rewrites: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"elements moved by reshapes: {self.reshape_elements_before} -> {self.reshape_elements_after}",
                 f"largest intermediate: {self.largest_intermediate_before} -> "
                 f"{self.largest_intermediate_after}"]
        lines += [f"  {r}" for r in self.rewrites]
        return "\n".join(lines)


def optimize_reshapes(outputs: Tensor | Sequence[Tensor]) -> tuple[Tensor | list[Tensor], RewriteReport]:
    """The outputs rebuilt with the rewrites applied until none matches, and a report."""
    single = isinstance(outputs, Tensor)
    outs = [outputs] if single else list(outputs)
    for t in outs:
        if not isinstance(t, Tensor):
            raise TypeError(f"optimize_reshapes: outputs must be tensors, not {type(t).__name__}")
    before = _measure(outs)
    rewrites: list[str] = []
    while True:
        outs, fired = _rewrite_once(outs)
        if fired is None:
            break
        rewrites.append(fired)
    after = _measure(outs)
    report = RewriteReport(before[0], after[0], before[1], after[1], rewrites)
    return (outs[0] if single else outs), report


def _shape(t: Tensor) -> list[int]:
    return [int(arith.value_of(e)) for e in t.shape]  # type: ignore[arg-type]


def _ops(outs: Sequence[Tensor]) -> list[Operation]:
    roots = list(dict.fromkeys(t.op for t in outs))
    return post_dfs_order(roots, read_graph(roots))


def _measure(outs: Sequence[Tensor]) -> tuple[int, int]:
    """(elements reshaped, largest computed tensor)."""
    moved = largest = 0
    for op in _ops(outs):
        if isinstance(op, ComputeOp):
            size = math.prod(_shape(op.output(0)))
            largest = max(largest, size)
            if op.tag == "reshape":
                moved += size
    return moved, largest


def _rewrite_once(outs: list[Tensor]) -> tuple[list[Tensor], str | None]:
    """Apply the first rewrite that matches (in graph order), rebuilding its consumers."""
    for op in _ops(outs):
        if not isinstance(op, ComputeOp):
            continue
        found = _reduce_of_reshape(op) or _reshape_of_elementwise(op)
        if found is None:
            continue
        new, what = found
        mapping = {op.output(0): new}
        rebuilt = _rebuild(outs, mapping)
        return rebuilt, what
    return outs, None


def _rebuild(outs: list[Tensor], mapping: dict[Tensor, Tensor]) -> list[Tensor]:
    for op in _ops(outs):
        if op.output(0) in mapping:
            continue
        new_op = op.replace_inputs(mapping)
        if new_op is not op:
            for k in range(op.num_outputs):
                mapping[op.output(k)] = new_op.output(k)
    return [mapping.get(t, t) for t in outs]


# -- (a) reduce(reshape(X)) ----------------------------------------------------------------------

def _reduce_of_reshape(op: ComputeOp) -> tuple[Tensor, str] | None:
    if op.tag != "reduce" or op.attrs.get("combiner") not in ("add", "max", "min", "mul") or op.attrs.get("has_init"):
        return None
    (y,) = op.input_tensors
    if not isinstance(y.op, ComputeOp) or y.op.tag != "reshape":
        return None
    (x,) = y.op.input_tensors
    src, dst = _shape(x), _shape(y)
    reduced = set(op.attrs["dimensions"])
    groups = ops.reshape_groups(src, dst)
    early = [g for g in groups if len(g[0]) == 1 and len(g[1]) == 1 and g[1][0] in reduced]
    if not early:
        return None
    early_in = [g[0][0] for g in early]
    early_out = {g[1][0] for g in early}
    combiner = op.attrs["combiner"]
    w = ops.reduce(x, None, early_in, combiner, name=f"{op.name}.early")
    kept = [d for d in range(len(dst)) if d not in early_out]
    y2 = ops.reshape(w, [dst[d] for d in kept], name=f"{y.op.name}.small")
    rest = [k for k, d in enumerate(kept) if d in reduced]
    z = ops.reduce(y2, None, rest, combiner, name=op.name) if rest else y2
    what = (f"reduce(reshape({x.name})) -> reduce(reshape(reduce({x.name}, {early_in}), "
            f"{[dst[d] for d in kept]}), {rest})")
    return z, what


# -- (b) reshape(f(reshape(X), broadcast(Y))) ------------------------------------------------------

def _reshape_of_elementwise(op: ComputeOp) -> tuple[Tensor, str] | None:
    if op.tag != "reshape":
        return None
    (e,) = op.input_tensors
    if not isinstance(e.op, ComputeOp) or e.op.tag not in _ELEMENTWISE:
        return None
    target, inner = _shape(op.output(0)), _shape(e)
    operands = list(dict.fromkeys(e.op.input_tensors))
    reshaped, broadcast = [], []
    for t in operands:
        if isinstance(t.op, ComputeOp) and t.op.tag == "reshape" and _shape(t.op.input_tensors[0]) == target:
            reshaped.append(t)
        elif isinstance(t.op, ComputeOp) and t.op.tag == "broadcast" and _shape(t) == inner:
            broadcast.append(t)
        elif len(t.shape) != 0:
            return None
    if not reshaped:
        return None
    groups = ops.reshape_groups(target, inner)
    mapping: dict[Tensor, Tensor] = {t: t.op.input_tensors[0] for t in reshaped}
    for b in broadcast:
        mapping[b] = _rebroadcast(b, groups, target, inner)
    result = _elementwise_on(e.op, mapping, target)
    names = ", ".join(t.name for t in operands)
    return result, f"reshape({e.op.name}({names})) -> {e.op.name} on the original shape {target}"


def _elementwise_on(op: ComputeOp, mapping: dict[Tensor, Tensor], shape: list[int]) -> Tensor:
    """*op*'s elementwise body over *shape*, reading ``mapping[t]`` for each operand ``t``."""

    def body(*index: Expr) -> Expr:
        class _Reads(ExprMutator):
            def visit_producer_load(self, x: ProducerLoad) -> Expr:
                new = mapping.get(x.producer, x.producer)
                return new[tuple(index)] if x.indices else new[()]
        return _Reads()(op.body[0])
    return compute(shape, body, name=op.name, tag=op.tag)


def _rebroadcast(b: Tensor, groups: list, target: list[int], inner: list[int]) -> Tensor:
    """``reshape(b, target)`` for ``b = broadcast(y, inner, dims)``, reshaping only the groups
    y varies in: ``broadcast(reshape(broadcast(y, those groups' dims), ...), target)``."""
    (y,) = b.op.input_tensors
    dims = list(b.op.attrs["dimensions"])
    touched = [(gi, go) for gi, go in groups if any(d in dims for d in go)]
    small_inner = [d for _, go in touched for d in go]
    small_target = [d for gi, _ in touched for d in gi]
    if set(small_inner) == set(dims):
        expanded = y  # y already spans exactly those dims, in order
    else:
        expanded = ops.broadcast(y, [inner[d] for d in small_inner], [small_inner.index(d) for d in dims],
                                 name=f"{b.op.name}.inner")
    reshaped = ops.reshape(expanded, [target[d] for d in small_target], name=f"{b.op.name}.reshape")
    return ops.broadcast(reshaped, target, small_target, name=b.op.name)
