"""The layout a stage's buffer is stored in: a dimension order and tiles (as XLA writes them).

This is the schedule's record (``s[T].set_layout("{1,0:(2,2)}")``); :class:`lower.Layout` does
the index arithmetic. A ``*`` tile entry (stored as -1) merges a dimension into the next minor one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

COMBINE = -1


@dataclass(frozen=True)
class LayoutSpec:
    minor_to_major: tuple[int, ...]
    tiles: tuple[tuple[int, ...], ...] = ()


def tile_text(tile: Sequence[int]) -> str:
    return "(" + ",".join("*" if t == COMBINE else str(t) for t in tile) + ")"


def parse_layout(text: str | None, rank: int, whole: str = "") -> LayoutSpec:
    """``{1,0:(2,4)(2,1)}`` (braces optional) for a shape of *rank* dims; the default layout
    (descending, untiled) when *text* is empty."""
    if not text or not text.strip():
        return LayoutSpec(tuple(range(rank - 1, -1, -1)))
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    order_text, _, tiles_text = body.partition(":")
    try:
        order = tuple(int(x) for x in order_text.replace(" ", "").split(",") if x)
        tiles = tuple(tuple(COMBINE if x.strip() == "*" else int(x) for x in t.split(","))
                      for t in re.findall(r"\(([^)]*)\)", tiles_text))
    except ValueError:
        raise ValueError(f"layout: cannot read the layout in {whole or text!r}") from None
    if tiles_text.strip() and not tiles:
        raise ValueError(f"layout: cannot read the tiles in {whole or text!r}")
    return LayoutSpec(order, tiles)


def check_layout(dims: Sequence[int], spec: LayoutSpec) -> None:
    """Raise ValueError naming the problem if *spec* cannot lay out a shape of *dims*."""
    rank = len(dims)
    if sorted(spec.minor_to_major) != list(range(rank)):
        raise ValueError(f"layout: minor_to_major {list(spec.minor_to_major)} is not a permutation of "
                         f"0..{rank - 1}")
    shape = rank
    for tile in spec.tiles:
        if not tile:
            raise ValueError("layout: an empty tile")
        if any(t == 0 or (t < 0 and t != COMBINE) for t in tile):
            raise ValueError(f"layout: tile {tile_text(tile)} has a size that is not positive")
        if tile[-1] == COMBINE:
            raise ValueError(f"layout: tile {tile_text(tile)} combines its minor-most dimension with "
                             "nothing ('*' must not be last)")
        if len(tile) > shape:
            raise ValueError(f"layout: tile {tile_text(tile)} has more dimensions than the "
                             f"{shape}-dimensional shape it tiles")
        shape = shape - sum(1 for t in tile if t == COMBINE) + sum(1 for t in tile if t != COMBINE)
