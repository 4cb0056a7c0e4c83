"""TVM's auto_scheduler loop states (``auto_scheduler.loop_state``): a schedule described as
stages of iterators (name, range, kind, annotation) and the transform steps
(:mod:`.steps`) that made them from the DAG's initial state.

The primitives (``split``, ``fuse``, ``reorder``, ``compute_at``, ``cache_read`` ...) work
on the state as TVM's do: iterators and stages are named by the objects the state hands out;
split and fuse compute the new ranges themselves; ``compute_at`` and ``compute_root`` forget
the stage's ranges (``ComputeDAG.infer_bound_from_state`` gives them back). The steps that
add a stage replay the steps on a te schedule of the DAG to learn its new operations.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from schedule import PlaceholderOp, Tensor
from schedule.base.errors import ScheduleError
from schedule.ir.itervar import Range
from tune.auto_scheduler.steps import ANNOTATION_NAMES, ANNOTATIONS, Step, fused_split_length, split_lengths

#: Where a stage is computed (TVM's ``ComputeAtKind``).
ROOT, INLINED, ITER = 0, 1, 2
#: Iterator kinds (TVM's ``IteratorKind``).
SPATIAL, REDUCTION, MIXED, SPECIAL = 0, 1, 2, 3


class Iterator:
    """One loop of a stage: *name*, *range* (None once unknown), *iter_kind* and *annotation*
    (codes of :data:`State.ANNOTATION_TRANS_TABLE`). Compared by identity, as TVM's objects."""

    __slots__ = ("name", "range", "iter_kind", "annotation", "orig_iters")

    def __init__(self, name: str, range_: Range | None, iter_kind: int, annotation: int = 0,
                 orig_iters: Sequence[Iterator] = ()) -> None:
        self.name, self.range, self.iter_kind, self.annotation = name, range_, iter_kind, annotation
        self.orig_iters = tuple(orig_iters)

    def with_(self, **changes: Any) -> Iterator:
        values = {"name": self.name, "range_": self.range, "iter_kind": self.iter_kind,
                  "annotation": self.annotation, "orig_iters": self.orig_iters, **changes}
        return Iterator(**values)

    def __repr__(self) -> str:
        where = f"({self.range.min},{self.range.extent})" if self.range is not None else "(None)"
        return f"Iterator({self.name} {where})"


@dataclass(frozen=True)
class Stage:
    """One operation of the state: its iterators and where it is computed."""

    op: Any
    op_type: int  # 0: placeholder, 1: compute
    iters: tuple[Iterator, ...]
    compute_at: int = ROOT
    auto_unroll_max_step: int = 0
    storage_offset: int = 0

    #: TVM's codes of where a stage is computed, by name.
    COMPUTE_AT_TRANS_TABLE = {"root": ROOT, "inlined": INLINED, "iter": ITER}  # noqa: RUF012

    @staticmethod
    def of(op: Any) -> Stage:
        if isinstance(op, PlaceholderOp):
            return Stage(op, 0, ())
        iters = [Iterator(iv.var.name, Range.from_min_extent(iv.dom.min, iv.dom.extent), SPATIAL)
                 for iv in getattr(op, "axis", ())]
        iters += [Iterator(iv.var.name, Range.from_min_extent(iv.dom.min, iv.dom.extent), REDUCTION)
                  for iv in getattr(op, "reduce_axis", ())]
        return Stage(op, 1, tuple(iters))


@dataclass
class _Attach:
    """Which stages are computed at which iterator: stage id -> (stage id, iterator id)."""

    at: dict[int, tuple[int, int]] = field(default_factory=dict)

    def attached(self, stage_id: int, iter_id: int) -> list[int]:
        return [s for s, key in self.at.items() if key == (stage_id, iter_id)]

    def moved(self, moves: dict[tuple[int, int], tuple[int, int]]) -> _Attach:
        return _Attach({s: moves.get(key, key) for s, key in self.at.items()})

    def shifted(self, start: int) -> _Attach:
        """Stage ids from *start* on one higher (a stage was inserted at *start*)."""
        def up(i: int) -> int:
            return i + 1 if i >= start else i
        return _Attach({up(s): (up(t), i) for s, (t, i) in self.at.items()})


class State:
    """A schedule as stages of iterators and the steps that made it (see the module)."""

    #: TVM's annotation codes by name.
    ANNOTATION_TRANS_TABLE = dict(ANNOTATIONS)
    ANNOTATION_NAMES = dict(ANNOTATION_NAMES)

    def __init__(self, dag: Any, stages: Any = None, steps: Sequence[Step] = (),
                 attach: _Attach | None = None, stage_id_map: dict[Any, int] | None = None) -> None:
        if isinstance(dag, State):  # TVM's State(state_object, dag): a state of *stages*' DAG
            other, dag = dag, stages if stages is not None else dag.compute_dag
            stages, steps, attach = other._stages, other.transform_steps, _Attach(dict(other._attach.at))
            stage_id_map = other.stage_id_map
        self.compute_dag = dag
        self._stages = list(stages or ())
        self.transform_steps = list(steps)
        self._attach = attach or _Attach()
        self.stage_id_map = dict(stage_id_map) if stage_id_map is not None else \
            {st.op: i for i, st in enumerate(self._stages)}

    @property
    def state_object(self) -> State:
        """The state itself (TVM's python wrapper and its object are one here)."""
        return self

    def copy(self) -> State:
        return State(self.compute_dag, self._stages, self.transform_steps, _Attach(dict(self._attach.at)),
                     self.stage_id_map)

    # -- what it holds ---------------------------------------------------------------------------
    @property
    def stages(self) -> list[Stage]:
        return list(self._stages)

    @property
    def stage_ops(self) -> list[Any]:
        return [st.op for st in self._stages]

    def attached_stages(self, stage_id: int, iter_id: int) -> list[int]:
        """The ids of the stages computed at iterator *iter_id* of stage *stage_id*."""
        return self._attach.attached(stage_id, iter_id)

    def __getitem__(self, key: Any) -> Stage:
        return self._stages[self._resolve_stage_id(key)]

    def _resolve_stage_id(self, key: Any) -> int:
        if isinstance(key, Tensor):
            key = key.op
        if isinstance(key, bool) or not isinstance(key, int):
            if key not in self.stage_id_map:
                raise ScheduleError(f"auto_scheduler state: {getattr(key, 'name', key)!r} is not a stage of this state")
            return self.stage_id_map[key]
        if not 0 <= key < len(self._stages):
            raise ScheduleError(f"auto_scheduler state: stage id {key} is out of range (0 to {len(self._stages) - 1})")
        return key

    def _iter_id(self, stage_id: int, iterator: Any) -> int:
        for i, it in enumerate(self._stages[stage_id].iters):
            if it is iterator:
                return i
        if isinstance(iterator, int) and not isinstance(iterator, bool) and 0 <= iterator < len(
                self._stages[stage_id].iters):
            return iterator
        raise ScheduleError(f"auto_scheduler state: {iterator!r} is not an iterator of stage "
                            f"{self._stages[stage_id].op.name!r} now")

    def _split_step(self, step_id: Any) -> Step:
        """Step *step_id*, which must be a split."""
        if isinstance(step_id, bool) or not isinstance(step_id, int) or not 0 <= step_id < len(self.transform_steps) \
                or self.transform_steps[step_id].kind != "SP":
            raise ScheduleError(f"auto_scheduler state: step {step_id!r} is not a split step of this state")
        return self.transform_steps[step_id]

    def _record(self, kind: str, *fields: Any) -> Step:
        step = Step(kind, fields)
        self.transform_steps.append(step)
        return step

    def _set_iters(self, stage_id: int, iters: Sequence[Iterator]) -> None:
        self._stages[stage_id] = replace(self._stages[stage_id], iters=tuple(iters))

    # -- loop primitives -------------------------------------------------------------------------
    def split(self, stage: Any, iterator: Any, lengths: Sequence[Any], inner_to_outer: bool = True) -> list[Iterator]:
        """Split *iterator* into ``len(lengths) + 1`` iterators; *lengths* are those of the inner
        ones (or, not *inner_to_outer*, of the outer ones), outermost first."""
        sid = self._resolve_stage_id(stage)
        iid = self._iter_id(sid, iterator)
        lengths = _lengths(lengths)
        it = self._stages[sid].iters[iid]
        extent = _const(it.range.extent) if it.range is not None else None
        self._record("SP", sid, iid, extent or 0, tuple(lengths), int(inner_to_outer))
        return self._do_split(sid, iid, lengths, inner_to_outer)

    def _do_split(self, sid: int, iid: int, lengths: list[Any], inner_to_outer: bool) -> list[Iterator]:
        it = self._stages[sid].iters[iid]
        extent = _const(it.range.extent) if it.range is not None else None
        start = it.range.min if it.range is not None else None
        parts: list[Iterator] = []
        rest = extent
        order = list(reversed(range(len(lengths)))) if inner_to_outer else list(range(len(lengths)))
        for i in order:
            length = lengths[i]
            name = f"{it.name}.{i + 1}" if inner_to_outer else f"{it.name}.{i}"
            rng = Range.from_min_extent(0, length) if length is not None else None
            parts.append(Iterator(name, rng, it.iter_kind))
            rest = -(-rest // length) if rest is not None and length is not None else None
        last_name = f"{it.name}.0" if inner_to_outer else f"{it.name}.{len(lengths)}"
        last_range = Range.from_min_extent(start, rest) if rest is not None and start is not None else None
        parts.append(Iterator(last_name, last_range, it.iter_kind))
        new = list(reversed(parts)) if inner_to_outer else parts
        iters = list(self._stages[sid].iters)
        self._set_iters(sid, [*iters[:iid], *new, *iters[iid + 1:]])
        # stages at the split iterator or after it keep their loop: the innermost new one, or the shifted one
        self._attach = self._attach.moved({(sid, i): (sid, i + len(lengths)) for i in range(iid, len(iters))})
        return new

    def follow_split(self, stage: Any, iterator: Any, src_step_id: int, n_split: int) -> list[Iterator]:
        """Split *iterator* as split step *src_step_id* did, into *n_split* + 1 iterators."""
        sid = self._resolve_stage_id(stage)
        iid = self._iter_id(sid, iterator)
        self._split_step(src_step_id)
        lengths = split_lengths(self.transform_steps, src_step_id, n_split)
        self._record("FSP", sid, iid, src_step_id, n_split)
        return self._do_split(sid, iid, lengths, True)

    def follow_fused_split(self, stage: Any, iterator: Any, src_step_ids: Sequence[int], level: int,
                           factor_or_nparts: bool) -> list[Iterator]:
        """Split *iterator* in two by the product of level *level* of splits *src_step_ids*."""
        sid = self._resolve_stage_id(stage)
        iid = self._iter_id(sid, iterator)
        for src in src_step_ids:
            if len(self._split_step(src).fields[3]) <= level or level < 0:
                raise ScheduleError(f"auto_scheduler state: split step {src} has no level {level}")
        length = fused_split_length(self.transform_steps, list(src_step_ids), level)
        self._record("FFSP", sid, iid, tuple(src_step_ids), level, int(factor_or_nparts))
        return self._do_split(sid, iid, [length], factor_or_nparts)

    def fuse(self, stage: Any, iters: Sequence[Any]) -> Iterator:
        """Fuse consecutive *iters* into one (its name the names joined by ``@``)."""
        sid = self._resolve_stage_id(stage)
        ids = [self._iter_id(sid, it) for it in iters]
        if not ids or ids != list(range(ids[0], ids[0] + len(ids))):
            raise ScheduleError("auto_scheduler state: fuse takes consecutive iterators, outermost first")
        self._record("FU", sid, tuple(ids))
        old = self._stages[sid].iters
        parts = [old[i] for i in ids]
        extents = [_const(p.range.extent) if p.range is not None else None for p in parts]
        rng = Range.from_min_extent(0, math.prod(extents)) if None not in extents else None
        kinds = {p.iter_kind for p in parts}
        fused = Iterator("".join(p.name + "@" for p in parts), rng, kinds.pop() if len(kinds) == 1 else MIXED, 0,
                         parts)
        self._set_iters(sid, [*old[:ids[0]], fused, *old[ids[-1] + 1:]])
        first, last = ids[0], ids[-1]
        self._attach = self._attach.moved({(sid, i): (sid, first if i <= last else i - last + first)
                                           for i in range(first + 1, len(old))})
        return fused

    def reorder(self, stage: Any, order: Sequence[Any]) -> None:
        """Put the stage's iterators in *order* (every one of them)."""
        sid = self._resolve_stage_id(stage)
        ids = [self._iter_id(sid, it) for it in order]
        if sorted(ids) != list(range(len(self._stages[sid].iters))):
            raise ScheduleError("auto_scheduler state: reorder takes every iterator of the stage once")
        self._record("RE", sid, tuple(ids))
        old = self._stages[sid].iters
        self._set_iters(sid, [old[i] for i in ids])

    def _annotate(self, stage: Any, iterator: Any, name: str) -> Iterator:
        sid = self._resolve_stage_id(stage)
        iid = self._iter_id(sid, iterator)
        code = ANNOTATIONS[name]
        self._record("AN", sid, iid, code)
        iters = list(self._stages[sid].iters)
        iters[iid] = iters[iid].with_(annotation=code)
        self._set_iters(sid, iters)
        return iters[iid]

    def bind(self, stage: Any, iterator: Any, thread_name: str) -> Iterator:
        """Bind *iterator* to a thread axis (``blockIdx.x``, ``threadIdx.y``, ``vthread`` ...)."""
        if thread_name not in ANNOTATIONS or thread_name in ("none", "unroll", "vectorize", "parallel", "tensorize"):
            raise ScheduleError(f"auto_scheduler state: bind to blockIdx.x/y/z, threadIdx.x/y/z or vthread, not "
                                f"{thread_name!r}")
        return self._annotate(stage, iterator, thread_name)

    def parallel(self, stage: Any, iterator: Any) -> Iterator:
        return self._annotate(stage, iterator, "parallel")

    def unroll(self, stage: Any, iterator: Any, max_unroll: int | None = None) -> Iterator:
        return self._annotate(stage, iterator, "unroll")

    def vectorize(self, stage: Any, iterator: Any) -> Iterator:
        return self._annotate(stage, iterator, "vectorize")

    def pragma(self, stage: Any, iterator: Any, pragma_type: str) -> None:
        """A pragma on *iterator* (``auto_unroll_max_step$16`` sets the stage's unroll limit)."""
        sid = self._resolve_stage_id(stage)
        iid = self._iter_id(sid, iterator)
        if not isinstance(pragma_type, str) or not pragma_type:
            raise ScheduleError(f"auto_scheduler state: a pragma is a name such as 'auto_unroll_max_step$16', not "
                                f"{pragma_type!r}")
        self._record("PR", sid, iid, pragma_type)
        name, _, value = pragma_type.partition("$")
        if name == "auto_unroll_max_step":
            self._stages[sid] = replace(self._stages[sid], auto_unroll_max_step=int(value))

    def storage_align(self, stage: Any, iterator: Any, factor: int, offset: int) -> None:
        sid = self._resolve_stage_id(stage)
        iid = self._iter_id(sid, iterator)
        if any(isinstance(x, bool) or not isinstance(x, int) for x in (factor, offset)) or factor < 1 or offset < 0:
            raise ScheduleError(f"auto_scheduler state: storage_align takes a factor >= 1 and an offset >= 0, got "
                                f"{factor!r} and {offset!r}")
        self._record("SA", sid, iid, factor, offset)
        self._stages[sid] = replace(self._stages[sid], storage_offset=offset)

    # -- where stages are computed ---------------------------------------------------------------
    def compute_at(self, stage: Any, target_stage: Any, target_iter: Any) -> None:
        """Compute *stage* inside *target_iter* of *target_stage*; its ranges are unknown until
        ``infer_bound_from_state``."""
        sid, tid = self._resolve_stage_id(stage), self._resolve_stage_id(target_stage)
        iid = self._iter_id(tid, target_iter)
        if sid == tid:
            raise ScheduleError(f"auto_scheduler state: stage {self._stages[sid].op.name!r} cannot be computed inside "
                                f"its own loops")
        self._record("CA", sid, tid, iid)
        self._forget_ranges(sid, ITER)
        self._attach.at[sid] = (tid, iid)

    def compute_root(self, stage: Any) -> None:
        sid = self._resolve_stage_id(stage)
        self._record("CR", sid)
        self._forget_ranges(sid, ROOT)
        self._attach.at.pop(sid, None)

    def compute_inline(self, stage: Any) -> None:
        sid = self._resolve_stage_id(stage)
        self._record("CI", sid)
        self._stages[sid] = replace(self._stages[sid], compute_at=INLINED)
        self._attach.at.pop(sid, None)

    def _forget_ranges(self, sid: int, where: int) -> None:
        st = self._stages[sid]
        self._stages[sid] = replace(st, compute_at=where, iters=tuple(it.with_(range_=None) for it in st.iters))

    # -- steps that add a stage ------------------------------------------------------------------
    def cache_read(self, stage: Any, scope_name: str, reader_stages: Sequence[Any]) -> Any:
        """A stage reading *stage*'s output into *scope_name* for *reader_stages*, placed just
        after *stage*; its operation."""
        sid = self._resolve_stage_id(stage)
        readers = tuple(self._resolve_stage_id(r) for r in reader_stages)
        self._record("CHR", sid, scope_name, readers)
        return self._add_stage(sid + 1, renewed=())

    def cache_write(self, stage: Any, scope_name: str) -> Any:
        """A stage computing *stage* into *scope_name*, placed just before it; *stage* then
        copies from it (with iterators of its own). The new stage's operation."""
        sid = self._resolve_stage_id(stage)
        self._record("CHW", sid, scope_name)
        return self._add_stage(sid, renewed=(sid + 1,))

    def rfactor(self, stage: Any, iterator: Any, factor_iter_id: int) -> Any:
        """Factor the reduction over *iterator* into a stage placed just before *stage*; its
        operation."""
        sid = self._resolve_stage_id(stage)
        iid = self._iter_id(sid, iterator)
        self._record("RF", sid, iid, factor_iter_id)
        return self._add_stage(sid, renewed=(sid + 1,))

    def _add_stage(self, new_id: int, renewed: Sequence[int]) -> Any:
        try:
            ops = self.compute_dag.ops_after(self.transform_steps)
        except (TypeError, ValueError):  # the step cannot be made: the state stays as it was
            self.transform_steps.pop()
            raise
        if len(ops) != len(self._stages) + 1:
            raise ScheduleError("auto_scheduler state: the step added more than one stage; this is not supported")
        old = self._stages
        stages = [*old[:new_id], Stage.of(ops[new_id]), *old[new_id:]]
        for i, op in enumerate(ops):
            if i == new_id:
                continue
            stages[i] = Stage.of(op) if i in renewed else replace(stages[i], op=op)
        self._stages = stages
        self._attach = self._attach.shifted(new_id)
        self.stage_id_map = {op: (i + 1 if i >= new_id else i) for op, i in self.stage_id_map.items()}
        for i, st in enumerate(self._stages):
            self.stage_id_map[st.op] = i
        return self._stages[new_id].op

    # -- text ------------------------------------------------------------------------------------
    def __str__(self) -> str:
        return self.to_text(delete_trivial_loop=True)

    def __repr__(self) -> str:
        return str(self)

    def __eq__(self, other: object) -> bool:
        """The same stages (operations, iterators, placements) made by the same steps."""
        return (isinstance(other, State) and self.to_text(False) == other.to_text(False)
                and [s.record() for s in self.transform_steps] == [s.record() for s in other.transform_steps])

    __hash__ = None  # type: ignore[assignment]  # states change in place

    def to_text(self, delete_trivial_loop: bool = True) -> str:
        """TVM's text: the placeholders, then each root stage's loops, the stages computed at
        a loop printed inside it."""
        lines = ["Placeholder: " + ", ".join(st.op.name for st in self._stages if st.op_type == 0)]
        for i, st in enumerate(self._stages):
            if st.op_type == 1 and st.compute_at == ROOT:
                self._stage_text(i, 0, delete_trivial_loop, lines)
        return "\n".join(lines) + "\n"

    def _stage_text(self, sid: int, base: int, trivial: bool, lines: list[str]) -> None:
        st = self._stages[sid]
        if st.auto_unroll_max_step:
            lines.append(" " * base + f"{st.op.name} auto_unroll: {st.auto_unroll_max_step}")
        if st.storage_offset:
            lines.append(" " * base + f"{st.op.name} storage_offset: {st.storage_offset}")
        indent = 0
        for i, it in enumerate(st.iters):
            one = it.range is not None and _const(it.range.extent) == 1
            if not (trivial and one):
                kind = ANNOTATION_NAMES.get(it.annotation, "for")
                kind = "for" if kind == "none" else kind
                where = f"({it.range.min},{it.range.extent})" if it.range is not None else "(None)"
                lines.append(" " * (base + indent) + f"{kind} {it.name} {where}")
                indent += 2
            for inner in self._attach.attached(sid, i):
                self._stage_text(inner, base + indent, trivial, lines)
        lines.append(" " * (base + indent) + f"{st.op.name} = ...")


def _lengths(lengths: Any) -> list[int | None]:
    """Split lengths: ints of at least 1, or None (left open)."""
    if not isinstance(lengths, (list, tuple)) or not all(
            x is None or (isinstance(getattr(x, "value", x), int) and not isinstance(x, bool)
                          and getattr(x, "value", x) >= 1) for x in lengths):
        raise ScheduleError(f"auto_scheduler state: split lengths are a list of ints >= 1 or None, got {lengths!r}")
    return [None if x is None else int(getattr(x, "value", x)) for x in lengths]


def _const(x: Any) -> int | None:
    value = getattr(x, "value", x)
    return value if isinstance(value, int) else None


def replay_on_state(state: State, steps: Sequence[Step]) -> State:
    """*state* with *steps* (records) applied one by one through its primitives."""
    for step in steps:
        f, k = step.fields, step.kind
        iters = state.stages[f[0]].iters
        if k == "SP":
            state.split(f[0], iters[f[1]], list(f[3]), bool(f[4]))
        elif k == "FSP":
            state.follow_split(f[0], iters[f[1]], f[2], f[3])
        elif k == "FFSP":
            state.follow_fused_split(f[0], iters[f[1]], list(f[2]), f[3], bool(f[4]))
        elif k == "FU":
            state.fuse(f[0], [iters[i] for i in f[1]])
        elif k == "RE":
            state.reorder(f[0], [iters[i] for i in f[1]])
        elif k == "AN":
            state._annotate(f[0], iters[f[1]], ANNOTATION_NAMES[f[2]])
        elif k == "PR":
            state.pragma(f[0], iters[f[1]], f[2])
        elif k == "SA":
            state.storage_align(f[0], iters[f[1]], f[2], f[3])
        elif k == "CA":
            state.compute_at(f[0], f[1], state.stages[f[1]].iters[f[2]])
        elif k == "CI":
            state.compute_inline(f[0])
        elif k == "CR":
            state.compute_root(f[0])
        elif k == "CHR":
            state.cache_read(f[0], f[1], list(f[2]))
        elif k == "CHW":
            state.cache_write(f[0], f[1])
        elif k == "RF":
            state.rfactor(f[0], iters[f[1]], f[2])
    return state
