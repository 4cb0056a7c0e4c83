"""XLA's tiled layouts: a dimension order plus tiles, as XLA writes shapes (``F32[3,5]{1,0:(2,2)}``).

The physical shape lists the dimensions from major to minor (``minor_to_major`` reversed).
Each tile in turn applies to the minor-most dimensions of the current shape: a dimension
``d`` tiled by ``t`` becomes ``ceil(d/t)`` tiles (kept in place) and ``t`` (moved, with the
other tile sizes, to the minor end, in order). A ``*`` in a tile merges that dimension into
the next minor one first. Elements are then laid out row-major over the final shape; the
padding a ragged edge needs is part of the buffer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bound.indexing.affine_expr import Dim
from bound.indexing.indexing_map import IndexingMap
from lower.layout.layout_plot import plot_layout
from schedule.ir import arith
from schedule.schedule.layout_spec import COMBINE, LayoutSpec, check_layout, parse_layout, parse_shape_layout, tile_text


@dataclass(frozen=True)
class Layout:
    """A shape with its layout; see the module docstring."""

    dtype: str
    dims: tuple[int, ...]
    minor_to_major: tuple[int, ...]
    tiles: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self) -> None:
        if any(not isinstance(d, int) or d < 0 for d in self.dims):
            raise ValueError(f"layout: dimensions {list(self.dims)} must be non-negative integers")
        check_layout(self.dims, LayoutSpec(self.minor_to_major, self.tiles))

    # -- text ------------------------------------------------------------------------------------
    @staticmethod
    def parse(text: str) -> Layout:
        """``F32[3,5]{1,0:(2,2)}``, ``{1,0:(2,4)(2,1)}`` tiles, ``*`` to combine dimensions.

        :raises TypeError: if *text* is not a string.
        :raises ValueError: naming the column where *text* stops being a layout, or what the
            layout cannot do with the shape.
        """
        dtype, dims, spec = parse_shape_layout(text)
        return Layout(dtype, dims, spec.minor_to_major, spec.tiles)

    @staticmethod
    def from_text(layout: str, dims: Sequence[int], dtype: str = "F32") -> Layout:
        """A layout given as ``{1,0:(2,2)}`` for a shape."""
        spec = parse_layout(layout, len(dims))
        return Layout(dtype, tuple(dims), spec.minor_to_major, spec.tiles)

    def __str__(self) -> str:
        tiles = "".join(tile_text(t) for t in self.tiles)
        order = ",".join(str(d) for d in self.minor_to_major)
        return f"{self.dtype}[{','.join(map(str, self.dims))}]{{{order}{':' + tiles if tiles else ''}}}"

    # -- geometry --------------------------------------------------------------------------------
    @property
    def physical_dims(self) -> tuple[int, ...]:
        """The dimensions' sizes from major to minor."""
        return tuple(self.dims[k] for k in reversed(self.minor_to_major))

    @property
    def tiled_dims(self) -> tuple[int, ...]:
        """The final shape the elements are laid out in, row-major."""
        shape = self.physical_dims
        for tile in self.tiles:
            shape = _tiled_shape(shape, tile)
        return shape

    @property
    def physical_size(self) -> int:
        """Elements in the buffer, padding included."""
        return math.prod(self.tiled_dims)

    def _physical_index(self, index: Sequence[Any]) -> list[Any]:
        return [index[k] for k in reversed(self.minor_to_major)]

    def tiled_index(self, index: Sequence[Any], ops: Any = None) -> list[Any]:
        """The position of logical *index* in :attr:`tiled_dims` (*ops* gives floordiv/floormod
        for symbolic indices)."""
        ops = ops or _IntOps
        e, d = self._physical_index(index), list(self.physical_dims)
        for tile in self.tiles:
            e, d = _tile_index(e, d, tile, ops)
        return e

    def linear_index(self, index: Sequence[int]) -> int:
        """The memory position of the element at logical *index*."""
        if len(index) != len(self.dims) or any(not 0 <= i < n for i, n in zip(index, self.dims)):
            raise ValueError(f"layout: index {tuple(index)} is outside the shape {list(self.dims)}")
        return _row_major(self.tiled_index(index), self.tiled_dims, _IntOps)

    def linear_index_expr(self, index: Sequence[Any]) -> Any:
        """:meth:`linear_index` as an expression of index expressions (our IR)."""
        ops = _ExprOps(arith)
        return _row_major(self.tiled_index(index, ops), self.tiled_dims, ops)

    def indexing_map(self) -> Any:
        """Logical index -> physical offset as an XLA indexing map."""
        ops = _AffineOps()
        dims = [Dim(k) for k in range(len(self.dims))]
        offset = _row_major(self.tiled_index(dims, ops), self.tiled_dims, ops)
        return IndexingMap.from_tensor_sizes([offset], list(self.dims)).simplify()

    # -- data ------------------------------------------------------------------------------------
    def linear_indices(self) -> np.ndarray:
        """The memory position of every element, as an array of the logical shape."""
        grid = np.indices(self.dims, dtype=np.int64) if self.dims else np.zeros((0,), np.int64)
        return np.asarray(_row_major(self.tiled_index(list(grid)), self.tiled_dims, _IntOps))

    def to_physical(self, array: np.ndarray) -> np.ndarray:
        """A flat buffer holding *array* in this layout (padding is zero)."""
        array = np.asarray(array)
        if array.shape != self.dims:
            raise ValueError(f"layout: array of shape {array.shape} for a layout of shape {list(self.dims)}")
        flat = np.zeros(self.physical_size, dtype=array.dtype)
        flat[self.linear_indices().reshape(-1)] = array.reshape(-1)
        return flat

    def tiled_view(self, array: np.ndarray) -> np.ndarray:
        """*array* padded, reshaped and transposed into :attr:`tiled_dims` (the document's
        pad-reshape-transpose view); row-major order of the result is memory order."""
        return self.to_physical(array).reshape(self.tiled_dims)

    def from_physical(self, flat: np.ndarray) -> np.ndarray:
        """The logical array held in the flat buffer *flat*."""
        flat = np.asarray(flat).reshape(-1)
        if flat.size != self.physical_size:
            raise ValueError(f"layout: a buffer of {flat.size} elements for a layout of {self.physical_size}")
        return flat[self.linear_indices()]

    def plot(self, path: str, title: str | None = None) -> None:
        """Draw the logical array (each element labelled with its memory position, tiles
        outlined) beside the memory order, to a PNG; needs matplotlib."""
        plot_layout(self, path, title)


# -- index arithmetic for ints, NumPy arrays, our expressions and affine expressions ------------

class _IntOps:
    """Index arithmetic on ints and NumPy integer arrays alike."""

    @staticmethod
    def div(a: Any, b: int) -> Any:
        return a // b

    @staticmethod
    def mod(a: Any, b: int) -> Any:
        return a % b

    @staticmethod
    def mul(a: Any, b: int) -> Any:
        return a * b

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        return a + b



class _ExprOps(_IntOps):
    def __init__(self, arith: Any) -> None:
        self.arith = arith

    def div(self, a: Any, b: int) -> Any:
        return self.arith.floordiv(a, b) if b != 1 else a

    def mod(self, a: Any, b: int) -> Any:
        return self.arith.floormod(a, b) if b != 1 else self.arith.const(0)

    def mul(self, a: Any, b: int) -> Any:
        return self.arith.mul(a, b)

    def add(self, a: Any, b: Any) -> Any:
        return self.arith.add(a, b)


class _AffineOps(_IntOps):
    @staticmethod
    def div(a: Any, b: int) -> Any:
        return a.floordiv(b)

    @staticmethod
    def mod(a: Any, b: int) -> Any:
        return a.mod(b)


def _row_major(index: Sequence[Any], dims: Sequence[int], ops: Any) -> Any:
    out: Any = 0
    for i, n in zip(index, dims):
        out = ops.add(ops.mul(out, n), i) if not (isinstance(out, int) and out == 0) else i
    return out


def _combine(e: list, d: list, tile: Sequence[int], ops: Any) -> tuple[list, list, list[int]]:
    """Apply the ``*`` entries of *tile* to the minor dims; returns the new index, shape, tile."""
    k = len(tile)
    head_e, head_d = e[:len(e) - k], d[:len(d) - k]
    te, td, tt = list(e[len(e) - k:]), list(d[len(d) - k:]), list(tile)
    i = 0
    while i < len(tt):
        if tt[i] == COMBINE:
            te[i + 1] = ops.add(ops.mul(te[i], td[i + 1]), te[i + 1])
            td[i + 1] = td[i] * td[i + 1]
            del te[i], td[i], tt[i]
        else:
            i += 1
    return head_e + te, head_d + td, tt


def _tile_index(e: list, d: list, tile: Sequence[int], ops: Any) -> tuple[list, list]:
    e, d, tile = _combine(e, d, tile, ops)
    k = len(tile)
    head_e, head_d = e[:len(e) - k], d[:len(d) - k]
    tail_e, tail_d = e[len(e) - k:], d[len(d) - k:]
    outer = [ops.div(x, t) for x, t in zip(tail_e, tile)]
    inner = [ops.mod(x, t) for x, t in zip(tail_e, tile)]
    return head_e + outer + inner, head_d + [-(-n // t) for n, t in zip(tail_d, tile)] + list(tile)


def _tiled_shape(d: Sequence[int], tile: Sequence[int]) -> tuple[int, ...]:
    return tuple(_tile_index([0] * len(d), list(d), tile, _IntOps)[1])
