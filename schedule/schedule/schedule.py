"""The schedule: one stage per operation, in TVM's order, and the whole-schedule primitives."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.base.pass_context import options
from schedule.operation.graph import post_dfs_order, read_graph
from schedule.operation.tensor import Operation, Tensor
from schedule.schedule.dataflow import cache_read as _cache_read
from schedule.schedule.dataflow import cache_write as _cache_write
from schedule.schedule.group import Group
from schedule.schedule.group import create_group as _create_group
from schedule.schedule.normalize import normalize as _normalize
from schedule.schedule.record import recorded
from schedule.schedule.rfactor import rfactor as _rfactor
from schedule.schedule.stage import AttachType, Stage


class Schedule:
    """Stages of every operation reachable from the outputs, producers before consumers.

    ``stage_map`` is keyed by the operations the user holds (``s[C]`` keeps working after
    cache_read, cache_write or inlining rebuilt ``C``'s operation).
    """

    def __init__(self, outputs: Sequence[Operation]) -> None:
        self.outputs: list[Operation] = list(outputs)
        self.stages: list[Stage] = []
        self.stage_map: dict[Operation, Stage] = {}
        self.groups: list[Group] = []
        # TVM's te.keep_schedule_record: a copy after each primitive (see schedule.schedule.record)
        self.keep_schedule_record = bool(options("te.keep_schedule_record"))
        self.schedule_record: list[Schedule] = []
        self.primitive_record: list[str] = []
        self._record_depth = 0
        for op in post_dfs_order(self.outputs, read_graph(self.outputs)):
            stage = Stage(op, self)
            stage.is_output = any(op is out for out in self.outputs)
            self.stages.append(stage)
            self.stage_map[op] = stage
        for stage in self.stages:  # a scan's body is a group computed at each of its steps
            body = stage.op.step_operations()
            if not body:
                continue
            group = Group(self, stage.name)
            group.attach_type, group.attach_stage = AttachType.ScanUpdate, stage
            self.groups.append(group)
            updates = {t.op for t in getattr(stage.op, "update", ())}
            for op in body:
                inner = self.stage_map[op]
                inner.group, inner.step_of = group, stage
                group.num_child_stages += 1
                if op in updates:
                    inner.attach_type, inner.attach_stage = AttachType.ScanUpdate, stage

    def record(self, primitive: str) -> None:
        """Keep a copy of this schedule, as it is after *primitive*."""
        self.schedule_record.append(self.copy())
        self.primitive_record.append(primitive)

    def __getitem__(self, key: Tensor | Operation) -> Stage:
        op = key.op if isinstance(key, Tensor) else key
        if not isinstance(op, Operation):
            raise ScheduleTypeError(f"a schedule is indexed by a tensor or an operation, not "
                                    f"{type(key).__name__}")
        stage = self.stage_map.get(op)
        if stage is None:
            raise ScheduleError(f"'{op.name}' is not part of this schedule (its stages: "
                                f"{', '.join(st.name for st in self.stages)})")
        return stage

    def __repr__(self) -> str:
        return f"schedule({', '.join(st.name for st in self.stages)})"

    def stage_of(self, op: Operation) -> Stage | None:
        """The stage whose current operation is *op* (after dataflow rewrites), if any."""
        return next((st for st in self.stages if st.op is op), None)

    def reads_transitively(self, consumer: Stage, producer: Stage) -> bool:
        """Whether *consumer* reads *producer*'s outputs, directly or through other stages."""
        stack, seen = [consumer.op], set()
        while stack:
            op = stack.pop()
            for t in op.input_tensors:
                if t.op is producer.op:
                    return True
                if t.op not in seen:
                    seen.add(t.op)
                    stack.append(t.op)
        return False

    def copy(self) -> Schedule:
        """A schedule with copies of every stage, sharing operations and IterVars."""
        new = Schedule.__new__(Schedule)
        new.outputs = list(self.outputs)
        mapping: dict[Any, Any] = {st: st._copy(new) for st in self.stages}
        for g in self.groups:
            mapping[g] = copy.copy(g)
            mapping[g]._schedule = new
        new.stages = [mapping[st] for st in self.stages]
        new.stage_map = {op: mapping[st] for op, st in self.stage_map.items()}
        new.groups = [mapping[g] for g in self.groups]
        new.keep_schedule_record, new.schedule_record, new.primitive_record = False, [], []
        new._record_depth = 0
        for st in [*new.stages, *new.groups]:
            if st.attach_stage is not None:
                st.attach_stage = mapping[st.attach_stage]
            if st.group is not None:
                st.group = mapping[st.group]
            if getattr(st, "step_of", None) is not None:
                st.step_of = mapping[st.step_of]
        return new

    def normalize(self) -> Schedule:
        """A normalized copy: inlined stages substituted, root loops rebased to start at 0.

        The copy keeps this schedule's IterVar objects, so ``bounds[C.op.axis[0]]`` still works;
        attachments to IterVars split or fused after compute_at move to the leaf carrying them.
        This schedule is not changed.
        """
        return _normalize(self)

    @recorded
    def create_group(self, outputs: Any, inputs: Any, include_inputs: bool = False) -> Group:
        """Group the stages on the paths from *inputs* to *outputs* (the inputs' own stages
        too if *include_inputs*), so that ``g.compute_at(s[C], x)`` places them together."""
        return _create_group(self, outputs, inputs, include_inputs)

    @recorded
    def rfactor(self, tensor: Tensor, axis: Any, factor_axis: int = 0) -> Any:
        """Factor the reduction of *tensor* over its leaf *axis* into a stage ``T.rf`` with
        *axis* as a data axis (at *factor_axis*); *tensor* then reduces ``T.rf``."""
        return _rfactor(self, tensor, axis, factor_axis)

    @recorded
    def cache_read(self, tensor: Tensor, scope: str, readers: Any) -> Tensor:
        """A stage copying *tensor* into *scope*, read by *readers* instead of *tensor*."""
        return _cache_read(self, tensor, scope, readers)

    @recorded
    def cache_write(self, tensor: Tensor | Sequence[Tensor], scope: str) -> Any:
        """A stage computing *tensor* into *scope*; *tensor*'s stage then copies it out.

        The cache's axes follow the stage's current leaves (``i.outer.c`` ...), and the original
        stage's relations are reset. A list form caches every output of a multi-output compute.
        """
        return _cache_write(self, tensor, scope)


def check_schedule(where: str, s: Any) -> Schedule:
    """*s* if it is a Schedule, else a TypeError saying what was expected."""
    if not isinstance(s, Schedule):
        raise TypeError(f"{where}: expected a Schedule (from te.create_schedule), got {type(s).__name__}")
    return s


def create_schedule(ops: Any) -> Schedule:
    """A schedule for an operation, a tensor, or a list of them (the outputs)."""
    items = list(ops) if isinstance(ops, (list, tuple)) else [ops]
    outputs = []
    for item in items:
        op = item.op if isinstance(item, Tensor) else item
        if not isinstance(op, Operation):
            raise ScheduleTypeError(f"create_schedule: expected operations or tensors, got "
                                    f"{type(item).__name__}")
        if not any(op is o for o in outputs):
            outputs.append(op)
    s = Schedule(outputs)
    if s.keep_schedule_record:
        s.record("vanilla")
    return s
