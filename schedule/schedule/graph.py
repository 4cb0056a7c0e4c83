"""The stage graph of a schedule and the attach paths of its stages."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import networkx as nx

from schedule.base.errors import ScheduleError
from schedule.ir.itervar import IterVar
from schedule.schedule.relations import Fuse, Split
from schedule.schedule.stage import ATTACHED, AttachType, Stage

if TYPE_CHECKING:
    from schedule.schedule.schedule import Schedule




def stage_graph(sch: Schedule) -> nx.DiGraph:
    """Stages of *sch* with an edge ``producer -> consumer`` for the current dataflow."""
    g = nx.DiGraph()
    by_op = {st.op: st for st in sch.stages}
    for st in sch.stages:
        g.add_node(st)
        for t in st.op.input_tensors:
            producer = by_op.get(t.op)
            if producer is not None:
                g.add_edge(producer, st)
    return g


def attach_ivar(stage: Stage) -> IterVar:
    """The leaf of the target stage that *stage* is attached at.

    If the IterVar given to compute_at was split or fused afterwards, the attachment follows it
    to the leaf that now carries it (the inner part of a split, the result of a fuse of which
    it was the inner part), as TVM's normalize does.
    """
    assert stage.attach_stage is not None
    if stage.attach_type == AttachType.ScanUpdate:  # each step of the scan: inside all its loops
        return stage.attach_stage.leaf_iter_vars[-1]
    assert stage.attach_ivar is not None
    target, iv = stage.attach_stage, stage.attach_ivar
    moved = True
    while moved and not any(leaf is iv for leaf in target.leaf_iter_vars):
        moved = False
        for rel in target.relations:
            if isinstance(rel, Split) and rel.parent is iv:
                iv, moved = rel.inner, True
            elif isinstance(rel, Fuse) and rel.inner is iv:
                iv, moved = rel.fused, True
    return iv


def attach_path(stage: Stage) -> list[IterVar]:
    """The loops enclosing *stage*, innermost first (the document's attach path).

    For a stage attached at leaf ``v`` of ``D``: ``v`` and every leaf of ``D`` outside it, then
    the same for ``D``'s own attachment, until a stage computed at the root.
    """
    return _attach_paths([stage], {})[stage]


def _own_loops(s: Stage) -> list[IterVar]:
    """The leaves of *s*'s target up to its attach point, innermost first."""
    target, iv = s.attach_stage, attach_ivar(s)
    assert target is not None
    leaves = target.leaf_iter_vars
    pos = next((k for k, leaf in enumerate(leaves) if leaf is iv), None)
    if pos is None:
        raise ScheduleError(f"stage '{s.name}' is attached at '{iv.name}', which is not a loop of "
                            f"'{target.name}' any more")
    return list(reversed(leaves[:pos + 1]))


def _attach_paths(stages: Iterable[Stage], paths: dict[Stage, list[IterVar]]) -> dict[Stage, list[IterVar]]:
    """The attach path of each of *stages*, reusing and extending *paths* (a target's path is
    computed once for all the stages attached inside it)."""
    for stage in stages:
        chain: list[Stage] = []
        s = stage
        while s not in paths and s.attach_type in ATTACHED:
            if s in chain:
                raise ScheduleError(f"stage '{stage.name}': the compute_at attachments form a loop "
                                    f"through '{s.name}'")
            chain.append(s)
            s = s.attach_stage  # type: ignore[assignment]
        if s not in paths:
            paths[s] = []
        for s in reversed(chain):
            paths[s] = _own_loops(s) + paths[s.attach_stage]  # type: ignore[index]
    return paths


def create_attach_path(sch: Schedule) -> dict[Stage, list[IterVar]]:
    """The attach path of every stage of *sch*."""
    paths = _attach_paths(sch.stages, {})
    return {st: paths[st] for st in sch.stages}
