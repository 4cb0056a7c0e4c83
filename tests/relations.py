"""Indexing maps as isl relations, for tests that compare maps as relations."""

from __future__ import annotations

import islpy as isl

from bound.indexing.text import isl_text


def isl_union(maps, reverse: bool = False) -> isl.Map:
    """The union of *maps* as one isl relation (each reversed if *reverse*)."""
    out = None
    for m in maps:
        r = isl.Map(isl_text(m))
        r = r.reverse() if reverse else r
        out = r if out is None else out.union(r)
    return out


def index_box(shape) -> isl.Set:
    """Every index of a tensor of *shape*."""
    names = [f"i{k}" for k in range(len(shape))]
    conds = " and ".join(f"0 <= {n} < {int(d)}" for n, d in zip(names, shape)) or "true"
    return isl.Set(f"{{ [{', '.join(names)}] : {conds} }}")
