"""The schedule pictures (TVM's tedd) say what the schedule holds: the DOT text's nodes and
edges are checked against the stages, relations, leaves, bindings and attachments."""

from __future__ import annotations

import re
import stat
import sys

import pytest

import schedule as te
from bound import tedd
from schedule.schedule.relations import Fuse, Rebase, Split

NODE = re.compile(r'^  "([^"]+)" \[label="((?:[^"\\]|\\.)*)"(.*)\];$')
EDGE = re.compile(r'^  "([^"]+)"(?::(\w+))? -> "([^"]+)"(?::(\w+))?(?: \[label="((?:[^"\\]|\\.)*)"(.*)\])?;$')


def parse(dot):
    """Nodes (id -> (label, attributes)) and edges (src, src port, dst, dst port, label); every
    line must be a node, an edge, or structure."""
    nodes, edges = {}, []
    for line in dot.splitlines():
        if m := EDGE.match(line):
            edges.append((m[1], m[2], m[3], m[4], (m[5] or "").replace("\\n", "\n")))
        elif m := NODE.match(line):
            nodes[m[1]] = (m[2].replace("\\n", "\n"), m[3])
        else:
            assert re.match(r'^(digraph \w+ \{|\}|  \}|  subgraph \w+ \{|  label="[^"]*";|  rankdir=\w+;|'
                            r'  node \[shape=\w+\];)$', line), line
    assert dot.count("{") - dot.count("\\{") == dot.count("}") - dot.count("\\}")
    return nodes, edges


def example_6():
    A = te.placeholder((16, 16), name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] + 2, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] * 3, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(s[C].fuse(*C.op.axis), 3)
    s[B].compute_at(s[C], xo)
    return s, B, C


def tiled_gpu():
    A = te.placeholder((32, 32), name="A")
    B = te.compute((32, 32), lambda i, j: A[i, j] * 2, name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, "shared", [B])
    bx, by, tx, ty = s[B].tile(B.op.axis[0], B.op.axis[1], 8, 8)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[B], bx)
    return s, AS, B


@pytest.mark.parametrize("make", [example_6, tiled_gpu])
def test_relation_graph_has_every_itervar_and_relation(make):
    s, *_ = make()
    nodes, edges = parse(tedd.itervar_relationship_graph(s))
    stages = [st for st in s.stages if st.op.root_iter_vars]
    for k, st in enumerate(stages):
        mine = {nid: v for nid, v in nodes.items() if nid.startswith(f"s{k}.")}
        ivs = {nid: v for nid, v in mine.items() if ".iv" in nid}
        rels = {nid: v for nid, v in mine.items() if ".rel" in nid}
        assert len(ivs) == len(st.all_iter_vars) and len(rels) == len(st.relations)
        name_of = {nid: label.split("\n")[0] for nid, (label, _) in ivs.items()}
        for j, rel in enumerate(st.relations):
            rid = f"s{k}.rel{j}"
            into = {(name_of[a], lab) for a, _, b, _, lab in edges if b == rid}
            out = {(name_of[b], lab) for a, _, b, _, lab in edges if a == rid}
            match rel:
                case Split(parent=p, outer=o, inner=i):
                    assert rels[rid][0].startswith("split")
                    assert into == {(p.name, "")} and out == {(o.name, "outer"), (i.name, "inner")}
                case Fuse(outer=o, inner=i, fused=f):
                    assert into == {(o.name, "outer"), (i.name, "inner")} and out == {(f.name, "")}
                case Rebase(parent=p, rebased=r):
                    assert into == {(p.name, "")} and out == {(r.name, "")}
        # Leaves are filled and numbered in loop order; only leaves are.
        for nid, (label, attrs) in ivs.items():
            name = name_of[nid]
            pos = [p for p, leaf in enumerate(st.leaf_iter_vars) if leaf.name == name]
            assert (f"leaf #{pos[0]}" in label) if pos else ("leaf #" not in label and "filled" not in attrs)
            attr = next((a for iv, a in st.iter_var_attrs.items() if iv.name == name), None)
            if attr is not None and attr.bind_thread is not None:
                assert f"bound to {attr.bind_thread.thread_tag}" in label and "gold" in attrs
        # Each stage attached here is named on its leaf.
        for other in s.stages:
            if other.attach_stage is st and other.attach_ivar is not None:
                (label,) = [lab for nid, (lab, _) in ivs.items() if name_of[nid] == other.attach_ivar.name]
                assert f"attach: {other.name}" in label


def test_relation_graph_shows_inferred_ranges():
    s, B, C = example_6()
    nodes, _ = parse(tedd.itervar_relationship_graph(s))
    labels = [label for label, _ in nodes.values()]
    assert "i.j.fused.outer\n[0, 86)\nleaf #0\nattach: B" in labels  # ceil(256 / 3) iterations
    assert "i.j.fused\n[0, 256)" in labels


@pytest.mark.parametrize("make", [example_6, tiled_gpu])
def test_dataflow_graph_has_one_edge_per_read(make):
    s, *_ = make()
    nodes, edges = parse(tedd.dataflow_graph(s))
    name = {nid: label.split("\n")[0] for nid, (label, _) in nodes.items()}
    assert sorted(name.values()) == sorted(st.name for st in s.stages)
    expected = {(t.op.name, st.name, t.name) for st in s.stages for t in st.op.input_tensors}
    assert {(name[a], name[b], lab) for a, _, b, _, lab in edges} == expected
    outputs = {name[nid] for nid, (_, attrs) in nodes.items() if "lightblue" in attrs}
    assert outputs == {st.name for st in s.stages if st.is_output}


@pytest.mark.parametrize("make", [example_6, tiled_gpu])
def test_schedule_tree_hangs_each_stage_where_it_is_computed(make):
    s, attached, consumer = make()
    nodes, edges = parse(tedd.schedule_tree(s))
    ids = {label.split("|")[0].removeprefix("{<title> ").removesuffix("}"): nid
           for nid, (label, _) in nodes.items() if nid != "root"}
    parents = {b: (a, port) for a, port, b, _, _ in edges}
    for st in s.stages:
        src, port = parents[ids[st.name]]
        if st.attach_stage is not None:
            pos = next(j for j, leaf in enumerate(st.attach_stage.leaf_iter_vars) if leaf is st.attach_ivar)
            assert (src, port) == (ids[st.attach_stage.name], f"l{pos}")
        else:
            assert src == "root"
        fields = nodes[ids[st.name]][0].count("|")
        assert fields == len(st.leaf_iter_vars)
    assert s[attached].attach_stage is s[consumer]


def test_render_writes_dot_text_and_needs_graphviz_for_pictures(tmp_path, monkeypatch):
    s, *_ = example_6()
    dot = tedd.dataflow_graph(s)
    assert tedd.render(dot, tmp_path / "g.dot").read_text() == dot
    monkeypatch.setattr(tedd.shutil, "which", lambda name: None)
    with pytest.raises(ImportError, match="Graphviz"):
        tedd.render(dot, tmp_path / "g.svg")


def test_render_draws_with_the_dot_program(tmp_path, monkeypatch):
    """A stand-in for Graphviz's dot records its arguments and input, and writes the file."""
    fake = tmp_path / "dot"
    fake.write_text(f"#!{sys.executable}\nimport sys\nargs = sys.argv[1:]\ntext = sys.stdin.read()\n"
                    "open(args[args.index('-o') + 1], 'w').write(args[0] + '\\n' + text)\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(tedd.shutil, "which", lambda name: str(fake))
    s, *_ = example_6()
    dot = tedd.schedule_tree(s)
    out = tedd.render(dot, tmp_path / "tree.svg")
    assert out.read_text() == "-Tsvg\n" + dot
    assert tedd.viz_schedule_tree(s, output_dot_string=True) == dot


def test_pictures_reject_a_non_schedule():
    with pytest.raises(TypeError, match="expected a Schedule"):
        tedd.schedule_tree("s")


def test_a_normalized_schedule_draws_its_rebased_leaves():
    """TVM's tedd tutorial normalizes first: each rebase leads from the root to its leaf."""
    A = te.placeholder((16, 16), name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] * 2, name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(C.op.axis[0], 4)
    s[B].compute_at(s[C], xo)
    dot = tedd.viz_itervar_relationship_graph(s.normalize(), output_dot_string=True)
    stage_b = dot.split('label="stage B";')[1].split("}")[0]
    assert stage_b.count('[label="rebase", shape="box"]') == 2
    assert '"s0.iv0" -> "s0.rel0"' in stage_b and '"s0.rel0" -> "s0.iv2"' in stage_b
    assert '"s0.iv2" [label="i\\n[0, 4)\\nleaf #0"' in stage_b
