"""The rooms (subpackages) of the layered packages and the order they import each other in."""

from __future__ import annotations

import networkx as nx

#: The rooms of each package, bottom up, and the rooms each may import (besides its own). A
#: module at a package's root is a room of its own name: ``errors`` is the base, the other root
#: modules of ``lower`` are its driver. The face (``__init__``) of a package may import anything.
ROOMS = {
    "schedule": {"base": set(), "ir": {"base"}, "operation": {"base", "ir"},
                 "schedule": {"base", "ir", "operation"}, "xla": {"base", "ir", "operation"}},
    "lower": {"errors": set(), "ir": {"errors"}, "layout": {"errors"}, "operation": {"errors", "ir", "layout"},
              "passes": {"errors", "ir", "layout", "operation"},
              "backend": {"errors", "ir", "layout", "operation", "passes"},
              "driver": {"errors", "ir", "layout", "operation", "passes", "backend"}},
    "bound": {"package_clash": set(), "errors": set(), "arith": {"errors"}, "isl": {"errors", "arith"},
              "operation": {"errors", "arith", "isl"}, "inference": {"errors", "arith", "isl", "operation"},
              "indexing": {"errors", "arith", "isl", "operation"},
              "report": {"errors", "arith", "isl", "operation", "inference"}},
}


def room(module: str) -> str | None:
    """The room of a module of a layered package (None for the package's face)."""
    pkg, *rest = module.split(".")
    if not rest:
        return None
    if rest[0] in ROOMS[pkg]:
        return rest[0]
    return "driver" if pkg == "lower" else rest[0]


def upward_imports(g: nx.DiGraph) -> list[tuple[str, str]]:
    """The imports inside a layered package that point to a room its importer may not import."""
    out = []
    for a, b in g.edges:
        pkg = a.split(".")[0]
        if pkg not in ROOMS or b.split(".")[0] != pkg or room(a) is None:
            continue
        ra, rb = room(a), room(b)
        if rb is None or (rb != ra and rb not in ROOMS[pkg].get(ra, set())):
            out.append((a, b))
    return sorted(out)
