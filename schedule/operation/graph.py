"""The read graph of operations (networkx ``DiGraph``, an edge ``producer -> consumer`` per tensor read;
each node keeps its ordered input tensors under ``"inputs"``) and TVM's stage order over it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import networkx as nx

from schedule.operation.tensor import Operation, Tensor

if TYPE_CHECKING:
    pass




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
