"""Groups of stages (``s.create_group``): stages computed together, attached as one.

A stage of a group that is computed at the root follows its group: ``g.compute_at(s[C], x)``
places every such member inside ``x``. A scan's body is a group attached at each step of the
scan. Normalization (:func:`resolve_groups`) writes each member's placement out, so bound
inference and lowering see only stages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir.itervar import IterVar
from schedule.operation.tensor import Operation, Tensor
from schedule.schedule.stage import ATTACHED, AttachType, Stage, check_same_group

if TYPE_CHECKING:
    from schedule.schedule.schedule import Schedule


class Group:
    """A group of stages and groups (its children), placed like one stage."""

    def __init__(self, schedule: Schedule, name: str) -> None:
        self._schedule = schedule
        self._name = name
        self.group: Group | None = None  # the enclosing group
        self.num_child_stages = 0
        self.attach_type = AttachType.GroupRoot
        self.attach_stage: Stage | None = None
        self.attach_ivar: IterVar | None = None

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"group({self._name})"

    def contains(self, stage: Stage | Group) -> bool:
        """Whether *stage* is in this group or in a group inside it."""
        g = stage.group
        while g is not None:
            if g is self:
                return True
            g = g.group
        return False

    def members(self) -> list[Stage]:
        """The stages in this group or in groups inside it."""
        return [st for st in self._schedule.stages if self.contains(st)]

    def compute_at(self, parent: Stage, scope: IterVar) -> None:
        """Compute every member that is computed at the root of the group inside the loop
        *scope* of *parent*, which must read one of them and be outside the group."""
        where = f"compute_at: {self!r}"
        if not isinstance(parent, Stage):
            raise ScheduleTypeError(f"{where}: the target must be a Stage (s[C]), not {type(parent).__name__}")
        if not isinstance(scope, IterVar):
            raise ScheduleTypeError(f"{where}: the attach point must be an IterVar of stage '{parent.name}', "
                                    f"not {type(scope).__name__}")
        if parent._schedule is not self._schedule:
            raise ScheduleError(f"{where}: the target stage '{parent.name}' belongs to another schedule")
        if self.contains(parent):
            raise ScheduleError(f"{where}: stage '{parent.name}' is a member of the group; attach the group "
                                "at a stage outside it")
        if not any(leaf is scope for leaf in parent.leaf_iter_vars):
            leaves = ", ".join(x.name for x in parent.leaf_iter_vars)
            raise ScheduleError(f"{where}: '{scope.name}' is not a leaf of stage '{parent.name}' (leaves: {leaves})")
        check_same_group(where, self, parent)
        members = self.members()
        s: Stage | None = parent
        while s is not None and s.attach_type in ATTACHED:
            s = s.attach_stage
            if s is not None and self.contains(s):
                raise ScheduleError(f"{where}: stage '{parent.name}' is itself computed inside member '{s.name}'")
        if not any(self._schedule.reads_transitively(parent, m) for m in members):
            raise ScheduleError(f"{where}: stage '{parent.name}' reads no member of the group; attach it to a "
                                "stage that consumes it")
        self.attach_type, self.attach_stage, self.attach_ivar = AttachType.Scope, parent, scope

    def compute_root(self) -> None:
        """Compute the group at the root (or where its enclosing group is computed)."""
        if self.attach_type == AttachType.ScanUpdate:
            raise ScheduleError(f"compute_root: {self!r} is the body of a scan, computed at each of its steps")
        self.attach_type, self.attach_stage, self.attach_ivar = AttachType.GroupRoot, None, None


def sub_graph(outputs: Sequence[Operation], inputs: Sequence[Operation], include_inputs: bool) -> list[Operation]:
    """The operations between *inputs* and *outputs*: those on a path from an input to an output
    (the inputs too if *include_inputs*), producers first."""
    boundary = set(inputs)
    reaches: dict[Operation, bool] = {}
    result: list[Operation] = []
    for root in outputs:
        stack: list[tuple[Operation, int]] = [(root, 0)]
        while stack:
            op, k = stack.pop()
            if k == 0:
                if op in reaches:
                    continue
                if op in boundary:
                    reaches[op] = True
                    if include_inputs:
                        result.append(op)
                    continue
                reaches[op] = False
            deps = op.input_tensors
            if k < len(deps):
                stack.append((op, k + 1))
                if deps[k].op not in reaches:
                    stack.append((deps[k].op, 0))
                continue
            if any(reaches.get(t.op, False) for t in deps):
                reaches[op] = True
                result.append(op)
    return result


def _common_ancestor(a: Group | None, b: Group | None) -> Group | None:
    if a is None or b is None:
        return None
    chain = []
    g: Group | None = a
    while g is not None:
        chain.append(g)
        g = g.group
    g = b
    while g is not None and not any(g is x for x in chain):
        g = g.group
    return g


def create_group(sch: Schedule, outputs: Any, inputs: Any, include_inputs: bool) -> Group:
    """A new group of the stages between *inputs* and *outputs* (see :meth:`Schedule.create_group`)."""
    outs = [_op(sch, "outputs", t) for t in _as_list(outputs)]
    ins = [_op(sch, "inputs", t) for t in _as_list(inputs)]
    if not isinstance(include_inputs, bool):
        raise ScheduleTypeError(f"create_group: include_inputs must be True or False, not {include_inputs!r}")
    ops = sub_graph(outs, ins, include_inputs)
    if not ops:
        raise ScheduleError("create_group: no stage lies on a path from the inputs to the outputs; check "
                            "that the outputs read the inputs")
    stages = [sch.stage_map[op] if op in sch.stage_map else sch.stage_of(op) for op in ops]
    if any(st is None for st in stages):
        raise ScheduleError("create_group: an operation between the inputs and the outputs has no stage")
    parent = stages[0].group  # type: ignore[union-attr]
    counter: dict[Group, int] = {}
    for st in stages:
        parent = _common_ancestor(parent, st.group) if parent is not None else None  # type: ignore[union-attr]
        if st.group is not None:  # type: ignore[union-attr]
            counter[st.group] = counter.get(st.group, 0) + 1  # type: ignore[union-attr]
    # A subgroup entirely inside the new group moves into it, as a whole.
    stack = [g for g, n in counter.items() if g is not parent and g.num_child_stages == n]
    while stack:
        g = stack.pop()
        if g.group is not None and g.group is not parent:
            counter[g.group] = counter.get(g.group, 0) + 1
            if counter[g.group] == g.group.num_child_stages:
                stack.append(g.group)
    for g, n in counter.items():
        if g is not parent and g.num_child_stages != n:
            raise ScheduleError(f"create_group: the stages overlap {g!r} without holding all of it; a group "
                                "holds whole groups")
    # -- all checks done; state changes only below --
    new = Group(sch, ", ".join(op.name for op in outs))
    new.group = parent
    if parent is not None:
        parent.num_child_stages += 1
    for child in [*counter, *stages]:
        if child is not parent and child.group is parent:  # type: ignore[union-attr]
            child.group = new  # type: ignore[union-attr]
            new.num_child_stages += 1
            if parent is not None:
                parent.num_child_stages -= 1
    for st in stages:
        # A compute_at to a stage outside the group would take the member out of it.
        if st.attach_type == AttachType.Scope and not (  # type: ignore[union-attr]
                new.contains(st.attach_stage) or st.attach_stage.group is new):  # type: ignore[union-attr]
            st.compute_root()  # type: ignore[union-attr]
        elif st.attach_type == AttachType.ScanUpdate and not _is_update(st):  # type: ignore[union-attr,arg-type]
            st.attach_type, st.attach_stage = AttachType.GroupRoot, None  # type: ignore[union-attr]
    sch.groups.append(new)
    return new


def _is_update(st: Stage) -> bool:
    scan = st.attach_stage
    return scan is not None and any(t.op is st.op for t in getattr(scan.op, "update", ()))


def _as_list(x: Any) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _op(sch: Schedule, what: str, t: Any) -> Operation:
    op = t.op if isinstance(t, Tensor) else t
    if not isinstance(op, Operation):
        raise ScheduleTypeError(f"create_group: {what} must be tensors, not {type(t).__name__}")
    return op


def attach_spec(st: Stage) -> Stage | Group:
    """Where *st* is placed: itself, or the group that places it."""
    spec: Stage | Group = st
    while spec.attach_type == AttachType.GroupRoot and spec.group is not None:
        spec = spec.group
    return spec


def resolve_groups(sch: Schedule) -> None:
    """Give every member that follows its group the group's placement."""
    for st in sch.stages:
        if st.attach_type != AttachType.GroupRoot or st.group is None:
            continue
        spec = attach_spec(st)
        if spec.attach_type in ATTACHED:
            st.attach_type, st.attach_stage, st.attach_ivar = spec.attach_type, spec.attach_stage, spec.attach_ivar
