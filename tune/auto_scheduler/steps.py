"""The transform steps of TVM's auto_scheduler states: each one a record (TVM's log form, such
as ``["SP", 2, 0, 512, [16], 1]``) that applies to a te schedule. A state
(:mod:`.loop_state`) keeps the list of them; replaying the list on a fresh schedule of the
DAG gives the schedule the state describes.

A step names stages by their position in the state and iterators by their position in the
stage, as TVM's records do; :func:`replay` keeps, for each stage in the state's order, its te
stage and the te IterVars of its iterators.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import schedule as te
from schedule.base.errors import ScheduleError

#: TVM's annotation codes, by name.
ANNOTATIONS = {"none": 0, "unroll": 1, "vectorize": 2, "parallel": 3, "vthread": 4, "blockIdx.x": 5,
               "threadIdx.x": 6, "blockIdx.y": 7, "threadIdx.y": 8, "blockIdx.z": 9, "threadIdx.z": 10,
               "tensorize": 11}
ANNOTATION_NAMES = {code: name for name, code in ANNOTATIONS.items()}


@dataclass(frozen=True)
class Step:
    """A step's record: its kind (TVM's two- or three-letter code) and its fields."""

    kind: str
    fields: tuple[Any, ...]

    @property
    def stage_id(self) -> int:
        return self.fields[0]

    def record(self) -> list[Any]:
        return [self.kind, *(list(f) if isinstance(f, tuple) else f for f in self.fields)]

    @staticmethod
    def from_record(items: Sequence[Any]) -> Step:
        if not items or items[0] not in _ARITY or len(items) != _ARITY[items[0]] + 1:
            raise ValueError(f"auto_scheduler: {list(items)!r} is not a step record (a kind such as 'SP' and its "
                             f"fields)")
        return Step(items[0], tuple(tuple(f) if isinstance(f, list) else f for f in items[1:]))


#: The number of fields of each kind of step.
_ARITY = {"AN": 3, "FU": 2, "PR": 3, "RE": 2, "SP": 5, "FSP": 4, "FFSP": 5, "SA": 4, "CA": 3, "CI": 1, "CR": 1,
          "CHR": 3, "CHW": 2, "RF": 3}
#: The steps that change the DAG (add a stage).
DAG_CHANGING = ("CHR", "CHW", "RF")


def split_lengths(steps: Sequence[Step], src: int, n_split: int) -> list[Any]:
    """The lengths a FollowSplit of step *src* (a split) takes: its first ``n_split - 1``
    lengths, then the product of the rest (None when one is unknown)."""
    lengths = list(steps[src].fields[3])
    if n_split < 1 or n_split > len(lengths) + 1:
        raise ScheduleError(f"follow_split: n_split {n_split} is not 1 to {len(lengths) + 1}")
    rest = lengths[n_split - 1:]
    last = None if any(x is None for x in rest) else math.prod(rest)
    return [*lengths[:n_split - 1], last]


def fused_split_length(steps: Sequence[Step], src_ids: Sequence[int], level: int) -> int | None:
    """The length a FollowFusedSplit takes: the product of level *level* of the splits."""
    total = 1
    for i in src_ids:
        x = steps[i].fields[3][level]
        if x is None:
            return None
        total *= x
    return total


class Replay:
    """A fresh te schedule of *ops* (the DAG's, in its order) and, per state stage, its te
    stage and the te IterVars standing for its iterators."""

    def __init__(self, outputs: Sequence[Any], ops: Sequence[Any]) -> None:
        self.schedule = te.create_schedule([t.op for t in outputs])
        self.stages = [self.schedule[op] for op in ops]
        self.axes = [self._initial(st) for st in self.stages]
        #: each fused IterVar's parts, as a state's fused iterator keeps its ``orig_iters``
        self.fused_from: dict[Any, list[Any]] = {}

    @staticmethod
    def _initial(stage: Any) -> list[Any]:
        op = stage.op
        return [*getattr(op, "axis", ()), *getattr(op, "reduce_axis", ())]

    def apply(self, steps: Sequence[Step], step: Step) -> None:
        """Apply *step* (the last of *steps*, the steps so far) to the schedule."""
        f, k = step.fields, step.kind
        if k in DAG_CHANGING:
            self._apply_dag_step(step)
            return
        stage, axes = self.stages[f[0]], self.axes[f[0]]
        if k == "SP":
            self._split(f[0], f[1], list(f[3]), bool(f[4]))
        elif k == "FSP":
            self._split(f[0], f[1], split_lengths(steps, f[2], f[3]), True)
        elif k == "FFSP":
            length = fused_split_length(steps, f[2], f[3])
            self._split(f[0], f[1], [length], bool(f[4]))
        elif k == "FU":
            ids = list(f[1])
            fused = stage.fuse(*(axes[i] for i in ids)) if len(ids) > 1 else axes[ids[0]]
            if len(ids) > 1:
                self.fused_from[fused] = [axes[i] for i in ids]
            self.axes[f[0]] = [*axes[:ids[0]], fused, *axes[ids[-1] + 1:]]
        elif k == "RE":
            self.axes[f[0]] = [axes[i] for i in f[1]]
            stage.reorder(*self.axes[f[0]])
        elif k == "AN":
            self._annotate(stage, axes[f[1]], f[2])
        elif k == "PR":
            name, _, value = str(f[2]).partition("$")
            if name == "auto_unroll_max_step":
                stage.pragma(axes[f[1]], name, int(value))
            else:
                stage.pragma(axes[f[1]], name)
        elif k == "SA":
            # TVM aligns a buffer dimension only for an axis of the operation; on any other
            # loop (a split or reduction loop) its step is kept and changes nothing
            if any(axes[f[1]] is iv for iv in getattr(stage.op, "axis", ())):
                stage.storage_align(axes[f[1]], f[2], f[3])
        elif k == "CA":
            stage.compute_at(self.stages[f[1]], self.axes[f[1]][f[2]])
        elif k == "CI":
            stage.compute_inline()
        elif k == "CR":
            stage.compute_root()

    def _split(self, stage_id: int, iter_id: int, lengths: list[Any], inner_to_outer: bool) -> None:
        stage, axes = self.stages[stage_id], self.axes[stage_id]
        axis, pieces = axes[iter_id], []
        if inner_to_outer:
            for length in reversed(lengths):
                axis, inner = stage.split(axis, factor=length)
                pieces.insert(0, inner)
            pieces.insert(0, axis)
        else:
            for length in lengths:
                outer, axis = stage.split(axis, nparts=length)
                pieces.append(outer)
            pieces.append(axis)
        self.axes[stage_id] = [*axes[:iter_id], *pieces, *axes[iter_id + 1:]]

    @staticmethod
    def _annotate(stage: Any, axis: Any, code: int) -> None:
        name = ANNOTATION_NAMES.get(code)
        if name == "unroll":
            stage.unroll(axis)
        elif name == "vectorize":
            stage.vectorize(axis)
        elif name == "parallel":
            stage.parallel(axis)
        elif name in ("vthread", "blockIdx.x", "threadIdx.x", "blockIdx.y", "threadIdx.y", "blockIdx.z",
                      "threadIdx.z"):
            stage.bind(axis, te.thread_axis(name))
        elif name != "none":
            raise ScheduleError(f"auto_scheduler: annotation {name or code!r} cannot be replayed here")

    def _apply_dag_step(self, step: Step) -> None:
        """cache_read, cache_write or rfactor: the schedule gains a stage; the stage list
        follows the schedule's order, and the stages whose operation changed take its axes."""
        f, k = step.fields, step.kind
        sch = self.schedule
        before = {id(st): axes for st, axes in zip(self.stages, self.axes)}
        stage = self.stages[f[0]]
        tensor = stage.op.output(0)
        if k == "CHR":
            # the stages themselves: a reader's operation may have been replaced by an earlier step
            sch.cache_read(tensor, f[1], [self.stages[i] for i in f[2]])
        elif k == "CHW":
            outputs = [stage.op.output(i) for i in range(stage.op.num_outputs)]
            sch.cache_write(outputs if len(outputs) > 1 else tensor, f[1])
        else:
            sch.rfactor(tensor, self.axes[f[0]][f[1]], f[2])
        self.stages = [st for st in sch.stages]
        self.axes = [before[id(st)] if id(st) in before and not self._renewed(st, before[id(st)])
                     else self._initial(st) for st in self.stages]

    @staticmethod
    def _renewed(stage: Any, axes: list[Any]) -> bool:
        """Whether *stage*'s operation was replaced by one with other axes (cache_write and
        rfactor give the written stage a new operation)."""
        known = set(stage.all_iter_vars)
        return any(ax not in known for ax in axes)
