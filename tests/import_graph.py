"""The import graph of the project's modules, read from their source (no import is run).

An edge ``a -> b`` says module *a* imports module *b*: at module level or inside a function
(``if TYPE_CHECKING:`` blocks excepted: they never run). ``from p import x`` counts as an import
of ``p.x`` when that is a module of the project, else of ``p``. A package's face
(``__init__.py``) is the module named after the package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("schedule", "bound", "lower", "topi", "tune", "tebound")


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the packages (of the checkout at *root*), by dotted name."""
    return {module_name(p, root): p for pkg in PACKAGES for p in sorted((root / pkg).rglob("*.py"))}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> Iterator[tuple[ast.stmt, bool]]:
    """Each import statement of *tree* and whether it runs at module level, skipping
    TYPE_CHECKING blocks."""
    stack: list[tuple[ast.AST, bool]] = [(tree, True)]
    while stack:
        node, top = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node):
            stack.extend((n, top) for n in node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, top  # type: ignore[misc]
            continue
        inner = top and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def imports(tree: ast.AST) -> Iterator[tuple[ast.stmt, bool]]:
    """The import statements of *tree* and whether each runs at module level (TYPE_CHECKING
    blocks skipped)."""
    return _imports(tree)


def imported(node: ast.stmt, known: dict[str, Path]) -> list[str]:
    """The project modules an import statement names."""
    out = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            name = alias.name
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                out.append(name)
    elif isinstance(node, ast.ImportFrom) and node.module:
        for alias in node.names:
            full = f"{node.module}.{alias.name}"
            if full in known:
                out.append(full)
            elif node.module in known:
                out.append(node.module)
    return out


def import_graph(module_level_only: bool = False, root: Path = ROOT) -> nx.DiGraph:
    """Modules and their imports; each edge has ``top`` (True for a module-level import)."""
    known = modules(root)
    g = nx.DiGraph()
    g.add_nodes_from(known)
    for name, path in known.items():
        for node, top in _imports(ast.parse(path.read_text())):
            if module_level_only and not top:
                continue
            for target in imported(node, known):
                if target != name:
                    previous = g.get_edge_data(name, target, {}).get("top", False)
                    g.add_edge(name, target, top=top or previous, line=node.lineno)
    return g


def circles(g: nx.DiGraph, package: str) -> list[list[str]]:
    """The strongly connected groups of more than one module inside *package*."""
    inside = g.subgraph(n for n in g if n.split(".")[0] == package)
    return [sorted(c) for c in nx.strongly_connected_components(inside) if len(c) > 1]
