"""Counts of the layering test's measures for a checkout: ``python -m tests.layering_report [ROOT]``.

Prints, per package, the import circles (strongly connected groups of modules) and the imports
between their modules (each of which points up some order of the modules), the imports that
point up the rooms of ``tests/test_layering.py`` and the project imports that run inside
a function. A checkout from before the split into rooms is measured with its modules renamed
to where they went (``schedule.base.moved``), so that both are judged by the same rooms.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import networkx as nx

from schedule.base.moved import MODULES, SPLIT

from .import_graph import PACKAGES, ROOT, circles, import_graph
from .rooms import upward_imports

#: Where the modules split in two went, judged by the part most of their code went to.
SPLIT_HOME = {"schedule.tensor": "schedule.operation.compute", "schedule.graph": "schedule.schedule.graph",
              "schedule.tensor_compute": "schedule.operation.tensor_compute",
              "schedule.schedule": "schedule.schedule.schedule", "lower.layout": "lower.layout.layout"}


def renamed(g: nx.DiGraph) -> nx.DiGraph:
    """*g* with each old module under its new name (modules of a face that moved keep theirs)."""
    def new(name: str) -> str:
        if name in SPLIT_HOME and name not in MODULES.values():
            return SPLIT_HOME[name]
        for old, now in sorted(MODULES.items(), key=lambda kv: -len(kv[0])):
            if name == old or name.startswith(old + "."):
                return now + name[len(old):]
        return name
    if not any(n in MODULES or n in SPLIT for n in g):
        return g
    return nx.relabel_nodes(g, {n: new(n) for n in g}, copy=True)


def report(root: Path) -> dict[str, dict[str, int]]:
    g = import_graph(root=root)
    g2 = renamed(g)
    up = upward_imports(g2)
    out = {}
    for pkg in PACKAGES:
        groups = circles(g, pkg)
        inside = [set(c) for c in groups]
        out[pkg] = {"circles": len(groups), "modules in circles": sum(map(len, groups)),
                    "imports inside circles": sum(1 for a, b in g.edges if any(a in c and b in c for c in inside)),
                    "upward imports": sum(1 for a, _ in up if a.split(".")[0] == pkg),
                    "imports inside functions": sum(1 for a, b, d in g.edges(data=True)
                                                    if not d["top"] and a.split(".")[0] == pkg),
                    "modules": sum(1 for n in g if n.split(".")[0] == pkg)}
    return out


def main(argv: list[str]) -> int:
    """The command: the report of the checkout *argv* names (this one by default)."""
    parser = argparse.ArgumentParser(prog="python -m tests.layering_report", description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", type=Path, default=ROOT, help="a checkout of this project (default: this one)")
    root = parser.parse_args(argv).root.resolve()
    if not (root / "schedule" / "__init__.py").is_file():  # every checkout, old or new, has it
        print(f"layering_report: {root} is not a checkout of this project: it has no schedule package",
              file=sys.stderr)
        return 2
    for pkg, counts in report(root).items():
        print(f"{pkg:9s} " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
