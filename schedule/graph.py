"""The dataflow graphs of a schedule and the attach paths of its stages.

The read graph is a networkx ``DiGraph`` over operations with an edge ``producer -> consumer``
for every tensor read; each node keeps its ordered input tensors under ``"inputs"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import networkx as nx

from schedule.errors import ScheduleError
from schedule.itervar import IterVar
from schedule.relations import Fuse, Split
from schedule.stage import ATTACHED, AttachType, Stage
from schedule.tensor import Operation, Tensor

if TYPE_CHECKING:
    from schedule.schedule import Schedule


def read_graph(roots: Iterable[Operation]) -> nx.DiGraph:
    """Every operation reachable from *roots* through input tensors.

    Edges go from producer to consumer and carry the tensors read (``"tensors"``).
    """
    g = nx.DiGraph()
    stack = list(roots)
    while stack:
        op = stack.pop()
        if op in g and "inputs" in g.nodes[op]:
            continue
        inputs = op.input_tensors
        g.add_node(op, inputs=inputs)
        for t in inputs:
            if g.has_edge(t.op, op):
                g.edges[t.op, op]["tensors"].append(t)
            else:
                g.add_edge(t.op, op, tensors=[t])
            if "inputs" not in g.nodes[t.op]:
                stack.append(t.op)
    return g


def post_dfs_order(roots: Sequence[Operation], g: nx.DiGraph) -> list[Operation]:
    """Operations in TVM's stage order: each after its inputs, inputs in the order they are read."""
    order: list[Operation] = []
    visited: set[Operation] = set()
    for root in roots:
        # An explicit stack keeps deep chains (thousands of stages) within Python's limits.
        stack: list[tuple[Operation, int]] = [(root, 0)]
        while stack:
            op, k = stack.pop()
            if k == 0:
                if op in visited:
                    continue
                visited.add(op)
            inputs = g.nodes[op]["inputs"]
            if k < len(inputs):
                stack.append((op, k + 1))
                if inputs[k].op not in visited:
                    stack.append((inputs[k].op, 0))
            else:
                order.append(op)
    return order


def feed_graph(g: nx.DiGraph) -> dict[Tensor, list[Operation]]:
    """For each tensor read in *g*, the operations that read it."""
    feed: dict[Tensor, list[Operation]] = {}
    for op in g.nodes:
        for t in g.nodes[op]["inputs"]:
            feed.setdefault(t, []).append(op)
    return feed


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
