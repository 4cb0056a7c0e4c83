"""What ``infer_bound`` returns: a dict from IterVar to Range that prints as a table (stage,
iter var, min, extent), one row per IterVar in stage order, instead of a dict's repr."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class BoundMap(dict):
    """``{IterVar: Range}`` with each IterVar's stage (*stages*: IterVar -> stage name; *rebased*:
    the IterVars normalize made for root loops that do not start at 0, by stage, printed with
    "(rebased)")."""

    def __init__(self, ranges: Mapping[Any, Any], stages: Mapping[Any, str],
                 rebased: Mapping[Any, str] | None = None) -> None:
        super().__init__(ranges)
        self.stages = dict(stages)
        self.rebased = dict(rebased or {})

    def __repr__(self) -> str:
        rows = [("stage", "iter var", "min", "extent")]
        names = list(dict.fromkeys([*self.stages.values(), *self.rebased.values()]))
        ordered = [iv for name in names for table in (self.stages, self.rebased) for iv, n in table.items()
                   if n == name and iv in self]
        ordered = list(dict.fromkeys([*ordered, *self]))
        for iv in ordered:
            r = self[iv]
            stage = self.stages.get(iv) or self.rebased.get(iv, "")
            name = iv.var.name + (" (rebased)" if iv in self.rebased and iv not in self.stages else "")
            rows.append((stage, name, str(r.min), str(r.extent)))
        widths = [max(len(row[c]) for row in rows) for c in range(4)]
        return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)

    __str__ = __repr__

    def __reduce__(self) -> tuple:
        return BoundMap, (dict(self), self.stages, self.rebased)
