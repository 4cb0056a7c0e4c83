"""NumPy references for pooling (TVM's ``topi.testing.poolnd_python``, ``adaptive_pool`` and
``pool_grad_nchw``), written as loops over windows, the plainest reading of the definition."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np


def _spatial(layout: str, rank: int) -> list[int]:
    """The positions of the *rank* spatial axes (D, H, W; the last *rank* of them) in *layout*."""
    letters = [c for c in layout if c.isalpha()]
    return [letters.index(a) for a in "DHW"[3 - rank:]]


def _moved(np_data: np.ndarray, layout: str, rank: int) -> np.ndarray:
    """*np_data* with its spatial axes last."""
    return np.moveaxis(np_data, _spatial(layout, rank), list(range(-rank, 0)))


def _back(out: np.ndarray, layout: str, rank: int) -> np.ndarray:
    return np.moveaxis(out, list(range(-rank, 0)), _spatial(layout, rank))


def _default_layout(rank: int) -> str:
    return {1: "NCW", 2: "NCHW", 3: "NCDHW"}[rank]


def _windows(size: Sequence[int], kernel: Sequence[int], strides: Sequence[int], dilation: Sequence[int],
             before: Sequence[int], after: Sequence[int], ceil_mode: bool) -> tuple[list[int], list[list[list[int]]]]:
    """The output size, and per axis per output position the window's taps (input positions,
    padding included)."""
    out_size, taps = [], []
    for k in range(len(size)):
        room = size[k] + before[k] + after[k] - (kernel[k] - 1) * dilation[k] - 1
        out_size.append((room + (strides[k] - 1 if ceil_mode else 0)) // strides[k] + 1)
        taps.append([[p * strides[k] - before[k] + t * dilation[k] for t in range(kernel[k])]
                     for p in range(out_size[k])])
    return out_size, taps


def poolnd_python(np_data: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilation: Sequence[int],
                  padding_before: Sequence[int], padding_after: Sequence[int], pool_type: str,
                  count_include_pad: bool = True, ceil_mode: bool = False, layout: str | None = None) -> np.ndarray:
    """Max or average pooling over the ``len(kernel)`` spatial axes of *layout*. A ceil-mode
    window may run past the end padding; an average divides by the window's taps inside the
    padded input (*count_include_pad*) or inside the input alone. As TVM's reference, a max
    counts its padding as 0 with *count_include_pad* (as the dtype's lowest value without,
    which is what ``pool2d`` computes either way)."""
    rank = len(kernel)
    layout = layout or _default_layout(rank)
    data = _moved(np_data, layout, rank).astype("float64")
    size = data.shape[-rank:]
    out_size, taps = _windows(size, kernel, strides, dilation, padding_before, padding_after, ceil_mode)
    out = np.zeros(data.shape[:-rank] + tuple(out_size))
    lowest = (np.finfo if np_data.dtype.kind == "f" else np.iinfo)(np_data.dtype).min
    for pos in itertools.product(*(range(o) for o in out_size)):
        window = [taps[k][p] for k, p in enumerate(pos)]
        inside = [[q for q in window[k] if 0 <= q < size[k]] for k in range(rank)]
        values = data[(..., *np.ix_(*inside))] if all(inside) else np.zeros(data.shape[:-rank] + (0,))
        if pool_type == "max":
            in_padding = all(any(-padding_before[k] <= q < size[k] + padding_after[k] for q in window[k])
                             for k in range(rank)) and any(len(inside[k]) < len([
                                 q for q in window[k] if -padding_before[k] <= q < size[k] + padding_after[k]])
                                 for k in range(rank))
            best = values.reshape(*data.shape[:-rank], -1).max(axis=-1) if values.size else lowest
            out[(..., *pos)] = np.maximum(best, 0 if count_include_pad else lowest) if in_padding else best
            continue
        if count_include_pad:
            count = np.prod([len([q for q in window[k] if q < size[k] + padding_after[k]]) for k in range(rank)])
        else:
            count = np.prod([len(i) for i in inside])
        total = values.reshape(*data.shape[:-rank], -1).sum(axis=-1)
        out[(..., *pos)] = total / max(count, 1)
    return _back(out, layout, rank).astype(np_data.dtype)


def adaptive_pool(np_data: np.ndarray, out_size: Sequence[int], pool_type: str, layout: str = "NCHW") -> np.ndarray:
    """Pooling into an *out_size* grid: output row i covers rows ``floor(i*H/rows)`` up to
    ``ceil((i+1)*H/rows)``, and so on for each spatial axis of *layout*."""
    rank = len(out_size)
    data = _moved(np_data, layout, rank)
    size = data.shape[-rank:]
    out = np.zeros(data.shape[:-rank] + tuple(out_size), dtype=np_data.dtype)
    for pos in itertools.product(*(range(o) for o in out_size)):
        cut = tuple(slice(p * n // o, -(-(p + 1) * n // o)) for p, n, o in zip(pos, size, out_size))
        window = data[(..., *cut)].reshape(*data.shape[:-rank], -1)
        out[(..., *pos)] = window.max(axis=-1) if pool_type == "max" else window.mean(axis=-1)
    return _back(out, layout, rank)


def pool_grad_nchw(a_np: np.ndarray, out_grad_np: np.ndarray, pool_size: Sequence[int], strides: Sequence[int],
                   padding: Sequence[int], pool_type: str, ceil_mode: bool,
                   count_include_pad: bool = True) -> np.ndarray:
    """The gradient of :func:`poolnd_python` (2-d, NCHW, no dilation) with respect to *a_np*:
    each window's output gradient goes to its first largest element (max), or in equal
    shares to the elements it counts (average)."""
    before, after = padding[:2], padding[2:]
    size = a_np.shape[2:]
    out_size, taps = _windows(size, pool_size, strides, (1, 1), before, after, ceil_mode)
    grad = np.zeros(a_np.shape, dtype="float64")
    for y, x in itertools.product(range(out_size[0]), range(out_size[1])):
        rows, cols = taps[0][y], taps[1][x]
        inside = [[q for q in rows if 0 <= q < size[0]], [q for q in cols if 0 <= q < size[1]]]
        if not all(inside):
            continue
        g = out_grad_np[:, :, y, x].astype("float64")
        if pool_type == "max":
            values = a_np[:, :, inside[0]][:, :, :, inside[1]].reshape(*a_np.shape[:2], -1)
            first = values.argmax(axis=-1)
            r, c = np.unravel_index(first, (len(inside[0]), len(inside[1])))
            n_idx, c_idx = np.meshgrid(range(a_np.shape[0]), range(a_np.shape[1]), indexing="ij")
            np.add.at(grad, (n_idx, c_idx, np.array(inside[0])[r], np.array(inside[1])[c]), g)
            continue
        if count_include_pad:
            count = len([q for q in rows if q < size[0] + after[0]]) * len([q for q in cols if q < size[1] + after[1]])
        else:
            count = len(inside[0]) * len(inside[1])
        grad[:, :, inside[0][0]:inside[0][-1] + 1, inside[1][0]:inside[1][-1] + 1] += \
            (g / max(count, 1))[:, :, None, None]
    return grad.astype(a_np.dtype)
