"""The lines of a TVMScript text before indentation: a :class:`Line`, or a :class:`Block` whose
header ends with ``:`` and whose body is indented under it (``pass`` when empty), as TVM's
Python document printer writes them with four spaces."""

from __future__ import annotations

from dataclasses import dataclass, field

INDENT = "    "


@dataclass
class Line:
    text: str


@dataclass
class Block:
    header: str
    body: list[Line | Block] = field(default_factory=list)


Doc = Line | Block


def render(docs: list[Doc], depth: int = 0) -> list[str]:
    """The indented lines of *docs* (iteratively: a body may be nested a thousand deep)."""
    out: list[str] = []
    stack: list[tuple[list[Doc], int, int]] = [(docs, 0, depth)]
    while stack:
        items, i, level = stack.pop()
        if i >= len(items):
            continue
        stack.append((items, i + 1, level))
        doc = items[i]
        if isinstance(doc, Line):
            out.append(INDENT * level + doc.text)
            continue
        out.append(INDENT * level + doc.header)
        stack.append((doc.body or [Line("pass")], 0, level + 1))
    return out
