"""tedd's drawings (Graphviz DOT text) as Mermaid flowcharts, which a web page draws with no
Graphviz installed (the documentation site's Material theme draws ``mermaid`` blocks).

Only the DOT that :mod:`bound.report.tedd` writes is read: quoted node names, ``label``,
``shape`` and ``fillcolor`` attributes, edges with a label, ``subgraph`` clusters and records.
"""

from __future__ import annotations

import re

_NODE = re.compile(r'^\s*"((?:[^"\\]|\\.)*)" \[(.*)\];$')
_EDGE = re.compile(r'^\s*"((?:[^"\\]|\\.)*)"(?::\w+)? -> "((?:[^"\\]|\\.)*)"(?::\w+)?(?: \[(.*)\])?;$')
_ATTR = re.compile(r'(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\w+))')
#: Mermaid's node brackets for Graphviz's shapes (anything else is a box).
_SHAPES = {"ellipse": ("([", "])"), "oval": ("([", "])"), "doubleoctagon": ("{{", "}}"), "box": ("[", "]"),
           "record": ("[", "]")}


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def _attrs(text: str) -> dict[str, str]:
    return {m.group(1): _unquote(m.group(2)) if m.group(2) is not None else m.group(3) for m in _ATTR.finditer(text)}


def _ident(name: str) -> str:
    return re.sub(r"\W", "_", name)


def _label(text: str, record: bool) -> str:
    if record:  # {<port> a|<port> b}: the fields one per line
        text = re.sub(r"<\w+>\s*", "", text.strip("{}")).replace("|", "\n")
        text = re.sub(r"\\([{}|<>])", r"\1", text)
    text = text.replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
    return '"' + "<br/>".join(text.split("\n")) + '"'


def to_mermaid(dot: str) -> str:
    """The Mermaid flowchart of tedd's *dot* text.

    :raises ValueError: for a line this reader does not know (not tedd's DOT).
    """
    direction, shape = "TB", "ellipse"
    out: list[str] = []
    styles: list[str] = []
    depth = 1
    for line in dot.splitlines():
        text = line.strip()
        if not text or text.startswith("digraph") or text == "}" and depth == 1:
            continue
        if m := re.fullmatch(r"rankdir=(\w+);", text):
            direction = m.group(1)
        elif m := re.fullmatch(r"node \[shape=(\w+)\];", text):
            shape = m.group(1)
        elif m := re.fullmatch(r"subgraph (\w+) \{", text):
            out.append("  " * depth + f"subgraph {m.group(1)}")
            depth += 1
        elif m := re.fullmatch(r'label="((?:[^"\\]|\\.)*)";', text):
            out[-1] += f'["{_unquote(m.group(1))}"]'
        elif text == "}":
            depth -= 1
            out.append("  " * depth + "end")
        elif m := _EDGE.match(line):
            label = _attrs(m.group(3) or "").get("label", "")
            arrow = f'-->|"{label}"|' if label else "-->"
            out.append("  " * depth + f"{_ident(_unquote(m.group(1)))} {arrow} {_ident(_unquote(m.group(2)))}")
        elif m := _NODE.match(line):
            attrs = _attrs(m.group(2))
            kind = attrs.get("shape", shape)
            left, right = _SHAPES.get(kind, ("[", "]"))
            name = _ident(_unquote(m.group(1)))
            out.append("  " * depth + f"{name}{left}{_label(attrs.get('label', name), kind == 'record')}{right}")
            if "fillcolor" in attrs:
                styles.append(f"  style {name} fill:{attrs['fillcolor']}")
        else:
            raise ValueError(f"to_mermaid: not a line of tedd's DOT: {text!r}")
    return "\n".join([f"flowchart {direction}", *out, *styles]) + "\n"
