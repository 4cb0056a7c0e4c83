"""The layout a stage's buffer is stored in: a dimension order and tiles (as XLA writes them).

This is the schedule's record (``s[T].set_layout("{1,0:(2,2)}")``); :class:`lower.Layout` does
the index arithmetic. A ``*`` tile entry (stored as -1) merges a dimension into the next minor one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

COMBINE = -1


@dataclass(frozen=True)
class LayoutSpec:
    minor_to_major: tuple[int, ...]
    tiles: tuple[tuple[int, ...], ...] = ()


def tile_text(tile: Sequence[int]) -> str:
    return "(" + ",".join("*" if t == COMBINE else str(t) for t in tile) + ")"


class _Scanner:
    """Reads a layout's text character by character; an error names the column (from 1)."""

    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def fail(self, what: str) -> ValueError:
        found = repr(self.text[self.at]) if self.at < len(self.text) else "the end"
        return ValueError(f"layout: expected {what} at column {self.at + 1} of {self.text!r}, found {found}")

    def skip_space(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in " \t":
            self.at += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.at] if self.at < len(self.text) else ""

    def accept(self, char: str) -> bool:
        if self.peek() == char:
            self.at += 1
            return True
        return False

    def expect(self, char: str, what: str) -> None:
        if not self.accept(char):
            raise self.fail(what)

    def number(self, what: str) -> int:
        self.skip_space()
        start = self.at
        while self.at < len(self.text) and self.text[self.at].isdigit():
            self.at += 1
        if start == self.at:
            raise self.fail(what)
        return int(self.text[start:self.at])

    def numbers(self, close: str, what: str) -> tuple[int, ...]:
        """Numbers separated by ',' up to *close* (which is consumed)."""
        out: list[int] = []
        if self.accept(close):
            return ()
        while True:
            out.append(self.number(what))
            if self.accept(close):
                return tuple(out)
            self.expect(",", f"',' or '{close}'")

    def end(self) -> None:
        if self.peek():
            raise self.fail("the end of the layout")


def _braced_layout(sc: _Scanner, rank: int) -> LayoutSpec:
    """``{order[:tiles]}`` (the ``{`` already read)."""
    order: list[int] = []
    if sc.peek() not in (":", "}"):
        while True:
            order.append(sc.number("a dimension number"))
            if sc.peek() in (":", "}"):
                break
            sc.expect(",", "',' ':' or '}'")
    tiles: list[tuple[int, ...]] = []
    if sc.accept(":"):
        while sc.accept("("):
            tile: list[int] = []
            while True:
                if sc.accept("*"):
                    tile.append(COMBINE)
                else:
                    size = sc.number("a tile size (a positive integer or '*')")
                    if size == 0:
                        sc.at -= 1
                        raise sc.fail("a tile size that is positive")
                    tile.append(size)
                if sc.accept(")"):
                    break
                sc.expect(",", "',' or ')'")
            tiles.append(tuple(tile))
        if not tiles:
            raise sc.fail("a tile such as (2,2) after ':'")
    sc.expect("}", "'}' to close the layout")
    return LayoutSpec(tuple(order) if order else tuple(range(rank - 1, -1, -1)), tuple(tiles))


def parse_layout(text: str | None, rank: int, whole: str = "") -> LayoutSpec:
    """``{1,0:(2,4)(2,1)}`` (braces optional) for a shape of *rank* dims; the default layout
    (descending, untiled) when *text* is empty. Every character must belong to the layout.

    :raises TypeError: if *text* is not a string.
    :raises ValueError: naming the column where the text stops being a layout.
    """
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise TypeError(f"layout: a layout is text such as '{{1,0:(2,2)}}', not {type(text).__name__}")
    if not text.strip():
        return LayoutSpec(tuple(range(rank - 1, -1, -1)))
    body = text.strip()
    sc = _Scanner(body if body.startswith("{") else "{" + body + "}")
    sc.expect("{", "'{'")
    spec = _braced_layout(sc, rank)
    sc.end()
    return spec


def parse_shape_layout(text: str) -> tuple[str, tuple[int, ...], LayoutSpec]:
    """``F32[3,5]{1,0:(2,2)}``: the element type, the dimensions and the layout.

    :raises TypeError: if *text* is not a string.
    :raises ValueError: naming the column where the text stops being a shape with a layout.
    """
    if not isinstance(text, str):
        raise TypeError(f"layout: a layout is text such as 'F32[3,5]{{1,0:(2,2)}}', not {type(text).__name__}")
    sc = _Scanner(text)
    sc.skip_space()
    start = sc.at
    while sc.at < len(text) and (text[sc.at].isalnum() or text[sc.at] == "_"):
        sc.at += 1
    if start == sc.at:
        raise sc.fail("an element type such as F32")
    dtype = text[start:sc.at]
    if sc.at < len(text) and text[sc.at] != "[":
        raise sc.fail("'[' after the element type")
    sc.expect("[", "'[' after the element type")
    dims = sc.numbers("]", "a dimension size")
    spec = _braced_layout(sc, len(dims)) if sc.accept("{") else LayoutSpec(tuple(range(len(dims) - 1, -1, -1)))
    sc.end()
    return dtype, dims, spec


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
