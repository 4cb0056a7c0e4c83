"""Pictures of a schedule, as TVM's tedd draws them: Graphviz DOT text, rendered to SVG or
PNG when Graphviz is installed.

- :func:`itervar_relationship_graph`: per stage, its IterVars and the relations between them
  (the InferBound document's figure): roots at the top, split, fuse, rebase and singleton
  nodes, leaves filled and numbered in loop order, thread bindings and the stages attached at
  a leaf written on it; ranges from InferBound.
- :func:`dataflow_graph`: the operations and the tensors between them; outputs filled.
- :func:`schedule_tree`: where each stage is computed: at the root, or at a leaf of another
  stage (each stage a record of its loops, the attached stage hanging from the loop's port).

:func:`to_mermaid` turns any of them into a Mermaid flowchart, which a web page draws without
Graphviz.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bound.inference.infer import infer_bound
from bound.report.mermaid import to_mermaid  # noqa: F401 - tedd.to_mermaid, beside the drawings
from schedule.ir.itervar import IterVar, Range
from schedule.schedule.relations import Fuse, Rebase, Singleton, Split
from schedule.schedule.schedule import Schedule, check_schedule
from schedule.schedule.stage import ATTACHED, AttachType, Stage

#: Fill colours: leaves, outputs, thread-bound leaves.
LEAF, OUTPUT, THREAD = "lightgreen", "lightblue", "gold"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _record(text: str) -> str:
    """*text* inside a record label: braces, bars and angle brackets are escaped."""
    for ch in "{}|<>":
        text = text.replace(ch, "\\" + ch)
    return text


def _node(name: str, label: str, **attrs: str) -> str:
    extra = "".join(f", {k}={_quote(v)}" for k, v in attrs.items())
    return f"  {_quote(name)} [label={_quote(label)}{extra}];"


def _edge(a: str, b: str, label: str = "", **attrs: str) -> str:
    extra = "".join(f", {k}={_quote(v)}" for k, v in attrs.items())
    return f"  {_quote(a)} -> {_quote(b)} [label={_quote(label)}{extra}];"


def _range(r: Range | None) -> str:
    if r is None:
        return ""
    return f"\n[0, {r.extent})" if str(r.min) == "0" else f"\n[{r.min}, {r.min} + {r.extent})"


def _bounds(s: Schedule, with_bounds: bool) -> dict[IterVar, Range]:
    return infer_bound(s, exact=False) if with_bounds else {}


def _attached_at(s: Schedule) -> dict[IterVar, list[Stage]]:
    out: dict[IterVar, list[Stage]] = {}
    for st in s.stages:
        if st.attach_type == AttachType.Scope and st.attach_ivar is not None:
            out.setdefault(st.attach_ivar, []).append(st)
    return out


def itervar_relationship_graph(s: Schedule, stages: Iterable[Stage] | None = None, with_bounds: bool = True) -> str:
    """DOT text of the IterVar relation graph of each of *stages* (every stage but placeholders)."""
    check_schedule("itervar_relationship_graph", s)
    bounds = _bounds(s, with_bounds)
    attached = _attached_at(s)
    chosen = [st for st in (stages if stages is not None else s.stages) if st.op.root_iter_vars]
    lines = ["digraph IterVarRelationshipGraph {", "  rankdir=TB;", "  node [shape=ellipse];"]
    for k, st in enumerate(chosen):
        # A normalized stage's rebased leaves are not among its all_iter_vars (as in TVM).
        ivs = list(dict.fromkeys([*st.all_iter_vars, *st.leaf_iter_vars,
                                  *(rel.rebased for rel in st.relations if isinstance(rel, Rebase))]))
        ids = {iv: f"s{k}.iv{j}" for j, iv in enumerate(ivs)}
        lines += [f"  subgraph cluster_stage{k} {{", f"  label={_quote('stage ' + st.name)};"]
        roots = set(st.op.root_iter_vars)
        for iv in ivs:
            kind = f"\n{iv.iter_type.name}" if iv.iter_type.name != "DataPar" else ""
            label = iv.name + _range(bounds.get(iv)) + kind
            attrs: dict[str, str] = {}
            if iv in roots:
                attrs["shape"] = "doubleoctagon"
            if any(iv is leaf for leaf in st.leaf_iter_vars):
                pos = next(p for p, leaf in enumerate(st.leaf_iter_vars) if leaf is iv)
                label += f"\nleaf #{pos}"
                attrs.update(style="filled", fillcolor=LEAF)
                attr = st.iter_var_attrs.get(iv)
                if attr is not None and attr.bind_thread is not None:
                    label += f"\nbound to {attr.bind_thread.thread_tag}"
                    attrs["fillcolor"] = THREAD
                elif attr is not None and attr.iter_type.name != "DataPar":
                    label += f"\n{attr.iter_type.name}"
                for other in attached.get(iv, []):
                    if other.attach_stage is st:
                        label += f"\nattach: {other.name}"
            lines.append(_node(ids[iv], label, **attrs))
        for j, rel in enumerate(st.relations):
            rid = f"s{k}.rel{j}"
            match rel:
                case Split(parent=p, outer=o, inner=i, factor=f, nparts=n):
                    how = f"factor={f}" if f is not None else f"nparts={n}"
                    lines += [_node(rid, f"split\n{how}", shape="box"), _edge(ids[p], rid),
                              _edge(rid, ids[o], "outer"), _edge(rid, ids[i], "inner")]
                case Fuse(outer=o, inner=i, fused=f):
                    lines += [_node(rid, "fuse", shape="box"), _edge(ids[o], rid, "outer"),
                              _edge(ids[i], rid, "inner"), _edge(rid, ids[f])]
                case Rebase(parent=p, rebased=r):
                    lines += [_node(rid, "rebase", shape="box"), _edge(ids[p], rid), _edge(rid, ids[r])]
                case Singleton(iter=iv):
                    lines += [_node(rid, "singleton", shape="box"), _edge(rid, ids[iv])]
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dataflow_graph(s: Schedule) -> str:
    """DOT text of the operations of *s* and the tensors they pass; outputs filled."""
    check_schedule("dataflow_graph", s)
    ids = {st.op: f"op{k}" for k, st in enumerate(s.stages)}
    lines = ["digraph DataflowGraph {", "  rankdir=LR;", "  node [shape=box];"]
    for st in s.stages:
        op = st.op
        outs = [op.output(k) for k in range(op.num_outputs)]
        shapes = "\n".join(f"{t.name}: ({', '.join(str(e) for e in t.shape)}) {t.dtype}" for t in outs)
        kind = type(op).__name__.removesuffix("Op").lower()
        attrs = {"style": "filled", "fillcolor": OUTPUT} if st.is_output else {}
        if st.attach_type in (AttachType.Inline, AttachType.InlinedAlready):
            attrs["style"] = "dashed"
        lines.append(_node(ids[op], f"{op.name}\n{kind}\n{shapes}", **attrs))
    for st in s.stages:
        for t in st.op.input_tensors:
            if t.op in ids:
                lines.append(_edge(ids[t.op], ids[st.op], t.name))
    lines.append("}")
    return "\n".join(lines) + "\n"


def schedule_tree(s: Schedule, with_bounds: bool = True) -> str:
    """DOT text of where each stage of *s* is computed: a record per stage listing its loops
    (outermost first), an edge from the root or from the loop a stage is attached at."""
    check_schedule("schedule_tree", s)
    bounds = _bounds(s, with_bounds)
    ids = {st: f"stage{k}" for k, st in enumerate(s.stages)}
    lines = ["digraph ScheduleTree {", "  rankdir=TB;", "  node [shape=record];",
             '  "root" [label="ROOT", shape=oval];']
    for st in s.stages:
        fields = [f"<title> {_record(st.name)}"]
        for j, iv in enumerate(st.leaf_iter_vars):
            text = iv.name + (f" [{bounds[iv].min}, +{bounds[iv].extent})" if iv in bounds else "")
            attr = st.iter_var_attrs.get(iv)
            if attr is not None and attr.bind_thread is not None:
                text += f" ({attr.bind_thread.thread_tag})"
            fields.append(f"<l{j}> {_record(text)}")
        attrs = {"style": "filled", "fillcolor": OUTPUT} if st.is_output else {}
        lines.append(f"  {_quote(ids[st])} [label={_quote('{' + '|'.join(fields) + '}')}"
                     + "".join(f", {k}={_quote(v)}" for k, v in attrs.items()) + "];")
    for st in s.stages:
        if st.attach_type in (AttachType.Inline, AttachType.InlinedAlready):
            lines.append(f"  {_quote('root')} -> {_quote(ids[st])} [label=\"inlined\", style=\"dashed\"];")
        elif st.attach_type == AttachType.Scope and st.attach_stage is not None:
            target = st.attach_stage
            pos = next((j for j, leaf in enumerate(target.leaf_iter_vars) if leaf is st.attach_ivar), None)
            port = f":l{pos}" if pos is not None else ""
            lines.append(f"  {_quote(ids[target])}{port} -> {_quote(ids[st])}:title [label=\"compute_at\"];")
        elif st.attach_type in ATTACHED and st.attach_stage is not None:  # a scan's update
            lines.append(f"  {_quote(ids[st.attach_stage])} -> {_quote(ids[st])}:title [label=\"each step\"];")
        else:
            lines.append(f"  {_quote('root')} -> {_quote(ids[st])}:title;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(dot: str, path: str | Path) -> Path:
    """Write *dot* to *path*: the text for ``.dot`` or ``.gv``, else the picture in the format
    the suffix names (``.svg``, ``.png``, ``.pdf``), drawn by Graphviz's ``dot``.

    :raises ImportError: when a picture is asked for and Graphviz's ``dot`` is not installed.
    :raises ValueError: when ``dot`` rejects the text.
    """
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt in ("dot", "gv", ""):
        path.write_text(dot)
        return path
    exe = shutil.which("dot")
    if exe is None:
        raise ImportError(f"render: drawing {path.name} needs Graphviz's 'dot' program (install Graphviz, or "
                          "write a .dot file and draw it elsewhere)")
    done = subprocess.run([exe, f"-T{fmt}", "-o", str(path)], input=dot, capture_output=True, text=True,
                          timeout=120)
    if done.returncode != 0:
        raise ValueError(f"render: dot could not draw {path.name}: {done.stderr.strip()}")
    return path


def _viz(dot: str, show_svg: bool, dot_file_path: str, output_dot_string: bool) -> Any:
    if dot_file_path:
        render(dot, dot_file_path)
    if show_svg:
        exe = shutil.which("dot")
        if exe is None:
            raise ImportError("show_svg needs Graphviz's 'dot' program")
        return subprocess.run([exe, "-Tsvg"], input=dot, capture_output=True, text=True, timeout=120).stdout
    return dot if output_dot_string else None


def viz_itervar_relationship_graph(sch: Schedule, show_svg: bool = False, dot_file_path: str = "",
                                   output_dot_string: bool = False) -> Any:
    """TVM's tedd entry point: the relation graphs of every stage (see :func:`render`)."""
    return _viz(itervar_relationship_graph(sch), show_svg, dot_file_path, output_dot_string)


def viz_dataflow_graph(sch: Schedule, show_svg: bool = False, dot_file_path: str = "",
                       output_dot_string: bool = False) -> Any:
    """TVM's tedd entry point: the dataflow graph (see :func:`render`)."""
    return _viz(dataflow_graph(sch), show_svg, dot_file_path, output_dot_string)


def viz_schedule_tree(sch: Schedule, show_svg: bool = False, dot_file_path: str = "",
                      output_dot_string: bool = False) -> Any:
    """TVM's tedd entry point: the schedule tree (see :func:`render`)."""
    return _viz(schedule_tree(sch), show_svg, dot_file_path, output_dot_string)
