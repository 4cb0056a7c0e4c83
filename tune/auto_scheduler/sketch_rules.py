"""Sketches of a DAG as TVM's auto_scheduler derives them for a CPU (``generate_sketches``): from
the initial loop state, stage by stage from the last, rules rewrite the state (always inline
an elementwise stage, tile a reduction in the multi-level SSRSRS structure, with its
elementwise consumer fused at one of two levels or a cache written for it, factor a long
reduction); a rule may also stop the rules after it. Split lengths are left open (None): a
sketch is filled in by the search.

The analysis of operations (what they read, with which indices) follows TVM's access
analyzer: a stage needs multi-level tiling when a read leaves out two spatial axes, or one
with a reduction; it is strictly inlinable when it reduces nothing, branches nowhere, calls no
costly function and reads elements at its own axes (shifted by constants at most).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bound.operation.access import body_reads
from schedule.ir.expr import Add, Call, IntImm, Reduce, Select, Sub, Var
from schedule.ir.functor import distinct_post_order, free_vars
from schedule.operation.compute import ComputeOp
from tune.auto_scheduler.loop_state import INLINED, REDUCTION, SPATIAL, State
from tune.auto_scheduler.steps import Step

APPLY, APPLY_AND_SKIP_REST, SKIP = "apply", "apply_and_skip_rest", "skip"
#: Calls a CPU sketch never inlines (TVM's "expensive" operations).
_COSTLY = {"exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "sinh",
           "cosh", "tanh", "asin", "acos", "atan", "sigmoid", "erf", "pow", "fast_exp", "fast_log", "fast_tanh",
           "fast_erf", "fast_sigmoid"}
_SIMPLIFY_CONST = "auto_scheduler_simplify_const_tensor_indices"


# -- the analysis of operations -----------------------------------------------------------------

def reads(op: Any) -> list[tuple[Any, tuple[Any, ...]]]:
    """Each tensor read of *op*'s body (its operation and indices), in order."""
    if not isinstance(op, ComputeOp):
        return []
    return [(a.tensor.op, tuple(a.indices)) for a in body_reads(op.body, op.input_tensors)]


def _nodes(op: Any) -> list[Any]:
    """Every distinct node of *op*'s body."""
    return [x for b in getattr(op, "body", ()) for x in distinct_post_order(b)]


def needs_multi_level_tiling(op: Any) -> bool:
    if not isinstance(op, ComputeOp):
        return False
    axes = [iv.var for iv in op.axis]
    for _, indices in reads(op):
        used = set(free_vars(indices))
        missing = sum(1 for v in axes if v not in used)
        if missing >= 2 or (missing >= 1 and op.reduce_axis):
            return True
    return False


def _shifted_axis(e: Any, axes: Sequence[Any]) -> int | None:
    """The axis *e* is, plus a constant at most (None otherwise)."""
    if isinstance(e, Var):
        return axes.index(e) if e in axes else None
    if isinstance(e, (Add, Sub)):
        if isinstance(e.b, IntImm):
            return _shifted_axis(e.a, axes)
        if isinstance(e, Add) and isinstance(e.a, IntImm):
            return _shifted_axis(e.b, axes)
    return None


def simple_access(op: Any, indices: Sequence[Any]) -> tuple[bool, bool, bool, bool]:
    """Whether *indices* (a read by *op*) are constants and *op*'s axes shifted by constants;
    and whether an axis is missing, one is used twice, and those used come in order."""
    axes = [iv.var for iv in op.axis]
    used = []
    for e in indices:
        if isinstance(e, IntImm):
            continue
        k = _shifted_axis(e, axes)
        if k is None:
            return False, False, False, False
        used.append(k)
    return True, len(set(used)) < len(axes), len(set(used)) < len(used), used == sorted(used)


def strictly_inlinable(op: Any) -> bool:
    if not isinstance(op, ComputeOp) or op.reduce_axis:
        return False
    nodes = _nodes(op)
    if any(isinstance(e, Reduce) for e in nodes):
        return False
    if any(isinstance(e, Select) or (isinstance(e, Call) and e.name in ("tvm_if_then_else", "if_then_else"))
           for e in nodes):
        return False
    if any(isinstance(e, Call) and e.name in _COSTLY for e in nodes):
        return False
    return all(simple_access(op, indices)[0] for _, indices in reads(op))


def _readers(ops: Sequence[Any]) -> dict[int, list[Any]]:
    out: dict[int, list[Any]] = {id(op): [] for op in ops}
    for op in ops:
        for t in getattr(op, "input_tensors", ()):
            if id(t.op) in out and op not in out[id(t.op)]:
                out[id(t.op)].append(op)
    return out


def elementwise_match(ops: Sequence[Any], op: Any, target: Any) -> bool:
    """Whether *op* reaches *target* through single readers that read it element for element
    (the same output shape, every axis once, in order)."""
    readers = _readers(ops)
    current = op
    while current is not target:
        nxt = readers.get(id(current), [])
        if len(nxt) != 1 or not isinstance(current, ComputeOp) or not isinstance(nxt[0], ComputeOp):
            return False
        nxt = nxt[0]
        if [int(d) for d in current.output(0).shape] != [int(d) for d in nxt.output(0).shape]:
            return False
        for src, indices in reads(nxt):
            if src is current:
                ok, missing, twice, ordered = simple_access(nxt, indices)
                if not ok or missing or twice or not ordered:
                    return False
        current = nxt
    return True


# -- questions about a state --------------------------------------------------------------------

def _is_output(state: State, stage_id: int) -> bool:
    return not _readers(state.stage_ops)[id(state.stages[stage_id].op)]


def consumers(state: State, stage_id: int) -> list[int]:
    """The stages reading *stage_id*'s output, looking through inlined stages."""
    ops = state.stage_ops
    readers, index = _readers(ops), {id(op): i for i, op in enumerate(ops)}
    found: list[int] = []
    stack = [ops[stage_id]]
    while stack:
        for r in readers[id(stack.pop())]:
            i = index[id(r)]
            if state.stages[i].compute_at == INLINED:
                stack.append(r)
            elif i not in found:
                found.append(i)
    return found


def single_elementwise_consumer(state: State, stage_id: int) -> int | None:
    found = consumers(state, stage_id)
    if len(found) == 1 and elementwise_match(state.stage_ops, state.stages[stage_id].op, state.stages[found[0]].op):
        return found[0]
    return None


def made_by(state: State, stage_id: int, kind: str) -> bool:
    """Whether a step of *kind* names stage *stage_id* (TVM's reading: after a cache write or
    rfactor, the id of the stage it added): the steps read from the last back, the id moved
    back over the stages that later steps inserted before it."""
    for step in reversed(state.transform_steps):
        if step.kind == kind and step.stage_id == stage_id:
            return True
        # cache_write and rfactor insert a stage at their own id, cache_read one after it
        inserted = {"CHR": step.stage_id + 1, "CHW": step.stage_id, "RF": step.stage_id}.get(step.kind)
        if inserted is not None and stage_id > inserted:
            stage_id -= 1
    return False


def has_cache_write(state: State, stage_id: int) -> bool:
    return made_by(state, stage_id, "CHW")


def _space_and_reduce(state: State, stage_id: int) -> tuple[int, int]:
    space, reduce = 1, 1
    for it in state.stages[stage_id].iters:
        extent = int(it.range.extent) if it.range is not None else 1
        if it.iter_kind == SPATIAL:
            space *= extent
        elif it.iter_kind == REDUCTION:
            reduce *= extent
    return space, reduce


def needs_rfactor(state: State, stage_id: int, num_cores: int) -> bool:
    op = state.stages[stage_id].op
    if not isinstance(op, ComputeOp):
        return False
    space, reduce = _space_and_reduce(state, stage_id)
    if needs_multi_level_tiling(op):
        return not (space > reduce or space > num_cores * 16)
    return reduce > 1 and reduce > num_cores


# -- the rules ----------------------------------------------------------------------------------

def _multi_level_tiling(state: State, stage_id: int, structure: str = "SSRSRS") -> tuple[State, list[int]]:
    """The stage's spatial iterators split in as many levels as *structure* has S, its
    reductions in as many as R, the levels ordered as *structure* says; the split steps'
    ids of the spatial iterators."""
    s = state.copy()
    n_space, n_reduce = structure.count("S"), structure.count("R")
    space_levels: list[list[Any]] = [[] for _ in range(n_space)]
    reduce_levels: list[list[Any]] = [[] for _ in range(n_reduce)]
    split_ids = []
    for it in list(s.stages[stage_id].iters):
        if it.iter_kind == SPATIAL:
            parts = s.split(stage_id, it, [None] * (n_space - 1)) if n_space > 1 else [it]
            if n_space > 1:
                split_ids.append(len(s.transform_steps) - 1)
            for level, part in zip(space_levels, parts):
                level.append(part)
        elif it.iter_kind == REDUCTION:
            parts = s.split(stage_id, it, [None] * (n_reduce - 1)) if n_reduce > 1 else [it]
            for level, part in zip(reduce_levels, parts):
                level.append(part)
    order, si, ri = [], 0, 0
    for c in structure:
        if c == "S":
            order += space_levels[si]
            si += 1
        else:
            order += reduce_levels[ri]
            ri += 1
    s.reorder(stage_id, order)
    return s, split_ids


def _follow_tiling(state: State, stage_id: int, split_ids: Sequence[int], n_split: int) -> State:
    """The stage's spatial iterators split as *split_ids* split the producer's, in
    ``n_split + 1`` levels, outer levels first."""
    s = state.copy()
    levels: list[list[Any]] = [[] for _ in range(n_split + 1)]
    k = 0
    for it in list(s.stages[stage_id].iters):
        if it.iter_kind == SPATIAL and k < len(split_ids):
            parts = s.follow_split(stage_id, it, split_ids[k], n_split)
            for level, part in zip(levels, parts):
                level.append(part)
            k += 1
    s.reorder(stage_id, [it for level in levels for it in level])
    return s


class Rule:
    """A sketch rule: when it meets a stage, and what states it makes (with the next stage)."""

    name = "rule"

    def condition(self, policy: Any, state: State, stage_id: int) -> str:
        raise NotImplementedError

    def apply(self, policy: Any, state: State, stage_id: int) -> list[tuple[State, int]]:
        raise NotImplementedError


class SkipStage(Rule):
    name = "skip_stage"

    def condition(self, policy: Any, state: State, stage_id: int) -> str:
        return APPLY

    def apply(self, policy: Any, state: State, stage_id: int) -> list[tuple[State, int]]:
        return [(state, stage_id - 1)]


class AlwaysInline(Rule):
    name = "always_inline"

    def condition(self, policy: Any, state: State, stage_id: int) -> str:
        stage = state.stages[stage_id]
        op = stage.op
        if stage.op_type == 0 or _is_output(state, stage_id) or any(it.iter_kind == REDUCTION for it in stage.iters):
            return SKIP
        constant = isinstance(op, ComputeOp) and not op.input_tensors
        return APPLY_AND_SKIP_REST if constant or strictly_inlinable(op) else SKIP

    def apply(self, policy: Any, state: State, stage_id: int) -> list[tuple[State, int]]:
        s = state.copy()
        s.compute_inline(stage_id)
        return [(s, stage_id - 1)]


class SimplifyComputeWithConstTensor(Rule):
    name = "simplify_compute_with_const_tensor"

    def condition(self, policy: Any, state: State, stage_id: int) -> str:
        attrs = getattr(state.stages[stage_id].op, "attrs", None) or {}
        return APPLY_AND_SKIP_REST if _SIMPLIFY_CONST in attrs else SKIP

    def apply(self, policy: Any, state: State, stage_id: int) -> list[tuple[State, int]]:
        const = {str(getattr(x, "value", x)) for x in state.stages[stage_id].op.attrs[_SIMPLIFY_CONST]}
        s = state.copy()
        tiled, unrolled = [], []
        for it in list(s.stages[stage_id].iters):
            if it.name in const:
                unrolled.append(s.unroll(stage_id, it))
            else:
                tiled.append(s.split(stage_id, it, [None]))
        s.reorder(stage_id, [parts[level] for level in range(2) for parts in tiled] + unrolled)
        return [(s, stage_id - 1)]


class AddRfactor(Rule):
    name = "add_rfactor"

    def condition(self, policy: Any, state: State, stage_id: int) -> str:
        cores = policy.search_task.hardware_params.num_cores
        return APPLY if needs_rfactor(state, stage_id, cores) and not has_cache_write(state, stage_id) else SKIP

    def apply(self, policy: Any, state: State, stage_id: int) -> list[tuple[State, int]]:
        base = state.copy()
        iters = base.stages[stage_id].iters
        space = [it for it in iters if it.iter_kind == SPATIAL]
        reduce = [it for it in iters if it.iter_kind == REDUCTION]
        fused = base.fuse(stage_id, reduce) if len(reduce) > 1 else reduce[0]
        outer, inner = base.split(stage_id, fused, [1])
        out = []
        for part, position in ((outer, 0), (inner, 1)):
            s = base.copy()
            rf = s.rfactor(stage_id, part, len(space))
            rid = s._resolve_stage_id(rf)
            if position == 1:  # the factored axis innermost, to vectorize it
                its = s.stages[rid].iters
                s.reorder(rid, [it for k, it in enumerate(its) if k != len(space)] + [its[len(space)]])
            out.append((s, rid - 1))
        return out


class AddCacheWrite(Rule):
    name = "add_cache_write"

    def condition(self, policy: Any, state: State, stage_id: int) -> str:
        op = state.stages[stage_id].op
        if needs_multi_level_tiling(op) and single_elementwise_consumer(state, stage_id) is None:
            return APPLY
        return SKIP

    def apply(self, policy: Any, state: State, stage_id: int) -> list[tuple[State, int]]:
        s = state.copy()
        s.cache_write(stage_id, "local")
        return [(s, stage_id)]


class MultiLevelTilingWithFusion(Rule):
    name = "multi_level_tiling_with_fusion"

    def condition(self, policy: Any, state: State, stage_id: int) -> str:
        op = state.stages[stage_id].op
        if needs_multi_level_tiling(op) and single_elementwise_consumer(state, stage_id) is not None:
            return APPLY_AND_SKIP_REST if has_cache_write(state, stage_id) else APPLY
        return SKIP

    def apply(self, policy: Any, state: State, stage_id: int) -> list[tuple[State, int]]:
        target = single_elementwise_consumer(state, stage_id)
        base, split_ids = _multi_level_tiling(state, stage_id)
        out = []
        for level in (1, 2):
            s = _follow_tiling(base, target, split_ids, level)
            at = s.stages[target].iters[level * len(split_ids) - 1]
            s.compute_at(stage_id, target, at)
            out.append((s, stage_id - 1))
        return out


class MultiLevelTiling(Rule):
    name = "multi_level_tiling"

    def condition(self, policy: Any, state: State, stage_id: int) -> str:
        return APPLY_AND_SKIP_REST if needs_multi_level_tiling(state.stages[stage_id].op) else SKIP

    def apply(self, policy: Any, state: State, stage_id: int) -> list[tuple[State, int]]:
        return [(_multi_level_tiling(state, stage_id)[0], stage_id - 1)]


class CustomRule(Rule):
    """A user's rule (``PreloadCustomSketchRule``): TVM's codes from *condition*, lists of
    [state, next stage] from *apply*."""

    def __init__(self, condition: Callable[..., int], apply: Callable[..., Any], name: str) -> None:
        self._condition, self._apply, self.name = condition, apply, name

    def condition(self, policy: Any, state: State, stage_id: int) -> str:
        code = self._condition(policy, state, stage_id)
        kinds = {0: SKIP, 1: APPLY, 2: APPLY_AND_SKIP_REST}
        if code not in kinds:
            raise ValueError(f"custom sketch rule {self.name!r}: its condition returned {code!r}; return "
                             f"PreloadCustomSketchRule.PASS, APPLY or APPLY_AND_SKIP_REST")
        return kinds[code]

    def apply(self, policy: Any, state: State, stage_id: int) -> list[tuple[State, int]]:
        return [(State(s, state.compute_dag) if not isinstance(s, State) else s, int(n))
                for s, n in self._apply(policy, state, stage_id)]


#: The CPU rules, in TVM's order.
CPU_RULES = (AlwaysInline(), SimplifyComputeWithConstTensor(), AddRfactor(), AddCacheWrite(),
             MultiLevelTilingWithFusion(), MultiLevelTiling(), SkipStage())


def generate_sketches(policy: Any, rules: Sequence[Rule] = CPU_RULES) -> list[State]:
    """Every sketch the rules derive from the initial state, breadth first, in TVM's order;
    the split before each rfactor left open."""
    init = policy.search_task.compute_dag.get_init_state()
    now: list[tuple[State, int]] = [(init, len(init.stages) - 1)]
    out: list[State] = []
    while now:
        nxt: list[tuple[State, int]] = []
        for state, stage_id in now:
            if stage_id < 0:
                out.append(state)
                continue
            for rule in rules:
                kind = rule.condition(policy, state, stage_id)
                if kind == SKIP:
                    continue
                nxt += rule.apply(policy, state, stage_id)
                if kind == APPLY_AND_SKIP_REST:
                    break
        now = nxt
    return [_open_rfactor_splits(s) for s in out]


def _open_rfactor_splits(state: State) -> State:
    steps = list(state.transform_steps)
    for k, step in enumerate(steps):
        if step.kind == "RF" and k > 0 and steps[k - 1].kind == "SP":
            f = steps[k - 1].fields
            steps[k - 1] = Step("SP", (f[0], f[1], f[2], (None,) * len(f[3]), f[4]))
    s = state.copy()
    s.transform_steps = steps
    return s


__all__ = ["APPLY", "APPLY_AND_SKIP_REST", "CPU_RULES", "SKIP", "CustomRule", "Rule", "generate_sketches"]
