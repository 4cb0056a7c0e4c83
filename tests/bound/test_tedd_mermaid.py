"""tedd's drawings as Mermaid flowcharts: every node and edge of the DOT text is there, with
its label, shape and fill, and text that is not tedd's DOT is refused."""

from __future__ import annotations

import re

import pytest

import schedule as te
from bound.report import tedd
from bound.report.mermaid import to_mermaid


def _example_6():
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda bi, bj: A[bi, bj] + 2, name="B")
    C = te.compute((4, 4), lambda ci, cj: B[ci, cj] * 3, name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(s[C].fuse(C.op.axis[0], C.op.axis[1]), 4)
    s[B].compute_at(s[C], xo)
    return s


@pytest.mark.parametrize("draw", [tedd.dataflow_graph, tedd.schedule_tree, tedd.itervar_relationship_graph])
def test_every_node_and_edge_of_the_drawing_is_in_the_flowchart(draw):
    dot = draw(_example_6())
    chart = tedd.to_mermaid(dot)
    nodes = re.findall(r'^\s*"([^"]+)" \[label=', dot, re.M)
    edges = re.findall(r'^\s*"([^"]+)"(?::\w+)? -> "([^"]+)"', dot, re.M)
    assert nodes and edges
    for name in nodes:
        assert re.search(rf"^\s*{re.escape(name.replace('.', '_'))}[\[\(\{{]", chart, re.M), name
    found = re.findall(r"^\s*(\w+) -->(?:\|\"[^\"]*\"\|)? (\w+)$", chart, re.M)
    assert sorted(found) == sorted((a.replace(".", "_"), b.replace(".", "_")) for a, b in edges)
    assert chart.splitlines()[0] == ("flowchart LR" if "rankdir=LR" in dot else "flowchart TB")


def test_labels_shapes_and_fills_are_kept():
    s = _example_6()
    chart = to_mermaid(tedd.itervar_relationship_graph(s))
    assert '    s1_iv3(["ci.cj.fused.outer<br/>[0, 4)<br/>leaf #35;0<br/>attach: B"])' in chart.splitlines()
    assert '  subgraph cluster_stage1["stage C"]' in chart.splitlines()
    assert "  style s1_iv3 fill:lightgreen" in chart.splitlines()
    tree = to_mermaid(tedd.schedule_tree(s))
    assert '  stage1["B<br/>bi [0, +4)<br/>bj [0, +4)"]' in tree.splitlines()
    assert '  stage2 -->|"compute_at"| stage1' in tree.splitlines()


def test_text_that_is_not_teds_dot_is_refused():
    with pytest.raises(ValueError, match="not a line of tedd's DOT: 'a -- b'"):
        to_mermaid("digraph g {\n  a -- b\n}\n")
