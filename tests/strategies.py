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


@dataclass(frozen=True)
class Recipe:
    """The structure of a random pipeline, to build over any shape (concrete or symbolic)."""

    two_inputs: bool
    stages: tuple[tuple, ...]  # (kind, index of P, extra: offsets or index of Q)


@st.composite
def recipes(draw, max_computes: int = 4) -> Recipe:
    two = draw(st.booleans())
    stages = []
    for k in range(draw(st.integers(2, max_computes))):
        kind = draw(st.sampled_from(["elementwise", "stencil", "product", "broadcast", "reduce"]))
        available = (2 if two else 1) + k
        p_index = draw(st.integers(0, available - 1))
        extra = None
        if kind == "stencil":
            extra = tuple(draw(st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), min_size=1, max_size=3)))
        elif kind == "product":
            extra = draw(st.integers(0, available - 1))
        stages.append((kind, p_index, extra))
    return Recipe(two, tuple(stages))


def instantiate(recipe: Recipe, shape: tuple) -> Pipeline:
    """The pipeline of *recipe* over *shape* (ints, or variables for a symbolic pipeline)."""
    tensors = [te.placeholder(shape, name="A")]
    if recipe.two_inputs:
        tensors.append(te.placeholder(shape, name="B"))
    placeholders = list(tensors)
    computes = []
    for k, (kind, p_index, extra) in enumerate(recipe.stages):
        P = tensors[p_index]
        name = f"T{k}"
        if kind == "elementwise":
            T = te.compute(shape, _elementwise(P), name=name)
        elif kind == "stencil":
            T = te.compute(shape, _stencil(P, extra, shape), name=name)
        elif kind == "product":
            T = te.compute(shape, _product(P, tensors[extra]), name=name)
        elif kind == "broadcast":
            T = te.compute(shape, _broadcast(P), name=name)
        else:
            T = te.compute(shape, _row_sum(P, te.reduce_axis((0, shape[1]), name=f"k{k}")), name=name)
        tensors.append(T)
        computes.append(T)
    read = {t for c in computes for t in c.op.input_tensors}
    outputs = [c for c in computes if c not in read]
    return Pipeline(placeholders, computes, outputs, shape)


@st.composite
def pipelines(draw, max_computes: int = 4, max_extent: int = 5) -> Pipeline:
    """A placeholder (or two) and 2..max_computes computes over one 2-D shape.

    Stage kinds: elementwise, stencils with offsets (reads guarded by if_then_else), products
    of two earlier tensors, broadcasts, and row reductions.
    """
    shape = (draw(st.integers(2, max_extent)), draw(st.integers(2, max_extent)))
    return instantiate(draw(recipes(max_computes)), shape)


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
            lines.append(f"{st_.name}: {type(st_.op).__name__} {[str(d) for d in st_.op.output(0).shape]}")
        for rel in st_.relations:
            lines.append(f"    {rel!r}")
        lines.append(f"    leaves [{', '.join(iv.name for iv in st_.leaf_iter_vars)}]")
        for iv, attr in st_.iter_var_attrs.items():
            if attr.bind_thread is not None:
                lines.append(f"    bind({iv.name}, {attr.bind_thread.thread_tag})")
        if st_.scope:
            lines.append(f"    set_scope({st_.scope})")
        if st_.attach_type == te.AttachType.Scope:
            lines.append(f"    compute_at({st_.attach_stage.name}, {st_.attach_ivar.name})")
        elif st_.attach_type != te.AttachType.GroupRoot:
            lines.append(f"    {st_.attach_type.name}")
    return "\n".join(lines)


@st.composite
def gpu_schedules(draw, p: Pipeline) -> te.Schedule:
    """Outputs bound to blocks and threads; other stages at the root, at the block loop in shared
    or warp memory fetched cooperatively by the threads, or at the thread loop in local memory; random
    cache_read and cache_write (local) stages; reductions bound to threads."""
    s = te.create_schedule([t.op for t in p.outputs])
    bx, tx = te.thread_axis("blockIdx.x"), te.thread_axis("threadIdx.x")
    factor = draw(st.integers(1, 4))
    consumers = {t: [c for c in p.computes if t in c.op.input_tensors] for t in [*p.placeholders, *p.computes]}
    cached = None
    readers = [c for c in consumers[p.placeholders[0]]]
    if readers and draw(st.booleans()):
        # Global until placed: shared or local memory needs a place inside the kernel.
        cached = s.cache_read(p.placeholders[0], "global", readers[:1])
        consumers[cached] = readers[:1]
    loops = {}
    across = set()  # outputs reduced across threads
    local = None
    for out in p.outputs:
        stage = s[out]
        if len(p.outputs) == 1 and draw(st.booleans()):
            local = s.cache_write(out, "local")
        fused = stage.fuse(*stage.op.axis)
        bo, ti = stage.split(fused, factor=factor)
        if draw(st.booleans()):
            stage.bind(bo, bx)
        stage.bind(ti, tx)
        if local is None and stage.op.reduce_axis and draw(st.booleans()):
            # A cross-thread reduction, the reduction split with a tail or not.
            _, ki = stage.split(stage.op.reduce_axis[0], factor=draw(st.integers(1, 4)))
            stage.bind(ki, te.thread_axis("threadIdx.y"))
            across.add(out)
        loops[out] = (bo, ti)
        if local is not None:
            s[local].compute_at(stage, ti)
    candidates = [t for t in reversed(p.computes) if t not in p.outputs]
    if cached is not None:
        candidates.append(cached)
    for T in candidates:
        users = consumers[T]
        if len(users) != 1 or users[0] not in loops or (local is not None and users[0] in p.outputs):
            continue
        bo, ti = loops[users[0]]
        # Warp memory needs threadIdx.x's extent to divide the warp size. Under a reader that
        # reduces across threadIdx.y, warp and local stages would have a copy per threadIdx.y
        # that the stages they read would have to be computed inside (TVM's InferBound leaves
        # that thread in their regions): only the root or shared memory there.
        per_y = users[0] not in across
        # A shared reduction bound to threadIdx.x alone would be repeated by every threadIdx.y.
        block = per_y or not T.op.reduce_axis
        choice = draw(st.sampled_from(["root", *(["block"] if block else []), *(["thread"] if per_y else []),
                                       *(["warp"] if 32 % factor == 0 and per_y else [])]))
        if choice in ("block", "warp"):
            s[T].compute_at(s[users[0]], bo)
            s[T].set_scope("shared" if choice == "block" else "warp")
            # Cooperative: the threads split the region (a reduction must be split, or every
            # thread would accumulate it again).
            if T.op.reduce_axis or draw(st.booleans()):
                fused = s[T].fuse(*s[T].op.axis)
                _, inner = s[T].split(fused, factor=factor)
                s[T].bind(inner, tx)
        elif choice == "thread":
            s[T].compute_at(s[users[0]], ti)
            s[T].set_scope("local")
    return s
