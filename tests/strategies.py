"""Hypothesis strategies: random compute DAGs and random schedules of them."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

import schedule as te


@dataclass(repr=False)
class Pipeline:
    placeholders: list[te.Tensor]
    computes: list[te.Tensor]
    outputs: list[te.Tensor]
    shape: tuple[int, int]

    def __repr__(self) -> str:
        return f"Pipeline(shape={self.shape}, outputs={[t.name for t in self.outputs]})"

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis prints with this
        printer.text(repr(self))


def _guarded(P, i, j, shape):
    n0, n1 = shape
    inside = te.all(i >= 0, i < n0, j >= 0, j < n1)
    return te.if_then_else(inside, P[i, j], te.const(0.0))


@st.composite
def pipelines(draw, max_computes: int = 4, max_extent: int = 5) -> Pipeline:
    """A placeholder (or two) and 2..max_computes computes over one 2-D shape.

    Stage kinds: elementwise, stencils with offsets (reads guarded by if_then_else), products
    of two earlier tensors, broadcasts, and row reductions.
    """
    shape = (draw(st.integers(2, max_extent)), draw(st.integers(2, max_extent)))
    tensors = [te.placeholder(shape, name="A")]
    if draw(st.booleans()):
        tensors.append(te.placeholder(shape, name="B"))
    placeholders = list(tensors)
    computes = []
    for k in range(draw(st.integers(2, max_computes))):
        kind = draw(st.sampled_from(["elementwise", "stencil", "product", "broadcast", "reduce"]))
        P = draw(st.sampled_from(tensors))
        name = f"T{k}"
        if kind == "elementwise":
            T = te.compute(shape, _elementwise(P), name=name)
        elif kind == "stencil":
            offsets = draw(st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), min_size=1, max_size=3))
            T = te.compute(shape, _stencil(P, offsets, shape), name=name)
        elif kind == "product":
            Q = draw(st.sampled_from(tensors))
            T = te.compute(shape, _product(P, Q), name=name)
        elif kind == "broadcast":
            T = te.compute(shape, _broadcast(P), name=name)
        else:
            k_axis = te.reduce_axis((0, shape[1]), name=f"k{k}")
            T = te.compute(shape, _row_sum(P, k_axis), name=name)
        tensors.append(T)
        computes.append(T)
    read = {t for c in computes for t in c.op.input_tensors}
    outputs = [c for c in computes if c not in read]
    return Pipeline(placeholders, computes, outputs, shape)


def _elementwise(P):
    return lambda i, j: P[i, j] * 2.0 + 1.0


def _stencil(P, offsets, shape):
    def body(i, j):
        total = te.const(0.0)
        for di, dj in offsets:
            total = total + _guarded(P, i + di, j + dj, shape)
        return total
    return body


def _product(P, Q):
    return lambda i, j: P[i, j] * Q[i, j]


def _broadcast(P):
    return lambda i, j: P[i, 0] + P[0, j]


def _row_sum(P, k):
    return lambda i, j: te.sum(P[i, k] * 2.0, axis=k)


@st.composite
def schedules(draw, p: Pipeline, allow_inline: bool = True) -> te.Schedule:
    """Random loop transforms on every stage, then random placements (compute_at / inline)."""
    s = te.create_schedule([t.op for t in p.outputs])
    for T in p.computes:
        stage = s[T]
        for _ in range(draw(st.integers(0, 3))):
            leaves = stage.leaf_iter_vars
            kind = draw(st.sampled_from(["split", "nparts", "fuse", "reorder"]))
            if kind in ("split", "nparts"):
                iv = draw(st.sampled_from(leaves))
                amount = draw(st.integers(1, 4))
                stage.split(iv, **({"factor": amount} if kind == "split" else {"nparts": amount}))
            elif kind == "fuse" and len(leaves) >= 2:
                k = draw(st.integers(0, len(leaves) - 2))
                stage.fuse(leaves[k], leaves[k + 1])
            elif kind == "reorder":
                stage.reorder(*draw(st.permutations(leaves)))
    outputs = set(p.outputs)
    for T in reversed(p.computes):
        if T in outputs:
            continue
        consumers = [c for c in p.computes if T in c.op.input_tensors]
        choice = draw(st.sampled_from(["root", "at", "inline"] if allow_inline else ["root", "at"]))
        if choice == "inline" and not T.op.reduce_axis:
            targets = [c for c in consumers if s[c].attach_stage is not s[T]]
            if not any(st_.attach_stage is s[T] for st_ in s.stages) and targets:
                s[T].compute_inline()
        elif choice == "at" and len(consumers) == 1 and s[consumers[0]].attach_type != te.AttachType.Inline:
            target = s[consumers[0]]
            s[T].compute_at(target, draw(st.sampled_from(target.leaf_iter_vars)))
    return s


def describe(s: te.Schedule) -> str:
    """A readable account of a schedule: each stage's body, loops, relations and placement."""
    lines = []
    for st_ in s.stages:
        if isinstance(st_.op, te.ComputeOp):
            axes = ", ".join(iv.name for iv in st_.op.axis)
            lines.append(f"{st_.name}[{axes}] = {st_.op.body[0]}")
        else:
            lines.append(f"{st_.name}: {type(st_.op).__name__} {[int(d) for d in st_.op.output(0).shape]}")
        for rel in st_.relations:
            lines.append(f"    {rel!r}")
        lines.append(f"    leaves [{', '.join(iv.name for iv in st_.leaf_iter_vars)}]")
        if st_.attach_type == te.AttachType.Scope:
            lines.append(f"    compute_at({st_.attach_stage.name}, {st_.attach_ivar.name})")
        elif st_.attach_type != te.AttachType.GroupRoot:
            lines.append(f"    {st_.attach_type.name}")
    return "\n".join(lines)
