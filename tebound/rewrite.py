"""The one change a TVM program needs here, applied to its source and to nothing else:

- ``import tvm`` (``as x``) becomes ``import tebound.tvm as tvm`` (``as x``);
- ``import tvm.X`` becomes ``import tebound.tvm as tvm; import tebound.tvm.X``, and
  ``import tvm.X as y`` becomes ``import tebound.tvm.X as y``;
- an import of several modules (``import numpy as np, tvm, sys``) becomes one import a module,
  joined by ``;`` on the same line, the others unchanged;
- ``from tvm[.X] import Y`` becomes ``from tebound.tvm[.X] import Y``;
- a ``pytest_plugins`` entry that names a tvm module (TVM's ``conftest.py``) names ours.

Statements are found with Python's own parser, so text inside strings and comments is left alone.
``python -m tebound.rewrite FILE [OUT]`` writes the rewritten file to OUT or standard output.
"""

from __future__ import annotations

import ast
import sys

_PACKAGE = "tebound.tvm"


def _is_tvm(name: str | None) -> bool:
    return name is not None and (name == "tvm" or name.startswith("tvm."))


def _ours(name: str) -> str:
    return _PACKAGE + name[3:]


def _import_alias(alias: ast.alias) -> str:
    """One ``import`` clause for *alias*, rewritten when it names tvm."""
    name, asname = alias.name, alias.asname
    if not _is_tvm(name):
        return f"import {name}" + (f" as {asname}" if asname else "")
    if name == "tvm":
        return f"import {_PACKAGE} as {asname or 'tvm'}"
    if asname:
        return f"import {_ours(name)} as {asname}"
    return f"import {_PACKAGE} as tvm; import {_ours(name)}"


class _Positions:
    """Offsets into a source text of the parser's (line, UTF-8 byte column) positions."""

    def __init__(self, source: str):
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def __call__(self, line: int, col: int) -> int:
        return self.starts[line - 1] + len(self.lines[line - 1].encode()[:col].decode())

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self(node.lineno, node.col_offset), self(node.end_lineno, node.end_col_offset)


def _module_span(source: str, start: int) -> tuple[int, int]:
    """Where the module name of ``from MODULE import ...`` starting at *start* begins and ends."""
    start += len("from")
    while source[start] in " \t\\\n":
        start += 1
    end = start
    while end < len(source) and (source[end].isalnum() or source[end] in "._"):
        end += 1
    return start, end


def rewrite(source: str) -> str:
    """*source* with its imports of tvm rewritten; raises ``SyntaxError`` when it is not Python."""
    tree = ast.parse(source)
    at = _Positions(source)
    spans: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(_is_tvm(a.name) for a in node.names):
            spans.append((*at.span(node), "; ".join(_import_alias(a) for a in node.names)))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _is_tvm(node.module):
            spans.append((*_module_span(source, at(node.lineno, node.col_offset)), _ours(node.module)))
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytest_plugins"
                                                  for t in node.targets):
            for const in ast.walk(node.value):
                if isinstance(const, ast.Constant) and isinstance(const.value, str) and _is_tvm(const.value):
                    spans.append((*at.span(const), repr(_ours(const.value))))
    for start, end, text in sorted(spans, reverse=True):
        source = source[:start] + text + source[end:]
    return source


def main(argv: list[str] | None = None) -> int:
    """The command: rewrite FILE into OUT (or standard output)."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help") or len(argv) > 2:
        sys.stdout.write("usage: python -m tebound.rewrite FILE [OUT]\n\n" + __doc__)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    try:
        with open(argv[0], encoding="utf-8") as fh:
            text = rewrite(fh.read())
    except (OSError, SyntaxError, UnicodeDecodeError) as err:
        sys.stderr.write(f"tebound.rewrite: cannot rewrite {argv[0]}: {err}\n")
        return 1
    if len(argv) == 2:
        with open(argv[1], "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
