"""NumPy references for the index-reading and region-writing transforms: gather, gather_nd,
one_hot, sequence_mask, strided_set, matrix_set_diag."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def gather_python(data: np.ndarray, axis: int, indices: np.ndarray) -> np.ndarray:
    """``out[i...] = data[i...]`` with *axis* replaced by ``indices[i...]``."""
    return np.take_along_axis(np.asarray(data), np.asarray(indices).astype(np.int64), axis=axis)


def gather_nd_python(a: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``out[y..., x...] = a[indices[0, y...], ..., indices[M-1, y...], x...]``."""
    indices = np.asarray(indices).astype(np.int64)
    return np.asarray(a)[tuple(indices[m] for m in range(indices.shape[0]))]


def one_hot(indices: np.ndarray, on_value: Any, off_value: Any, depth: int, axis: int, dtype: str) -> np.ndarray:
    """*on_value* where the new axis of length *depth* (at *axis*) equals the index, else *off_value*."""
    indices = np.asarray(indices)
    axis = axis % (indices.ndim + 1)
    hot = np.expand_dims(indices, axis) == np.arange(depth).reshape([depth if k == axis else 1
                                                                      for k in range(indices.ndim + 1)])
    return np.where(hot, on_value, off_value).astype(dtype)


def sequence_mask(data: np.ndarray, valid_length: np.ndarray, mask_value: Any, axis: int) -> np.ndarray:
    """*data* with the steps along *axis* at or past each batch's valid length set to *mask_value*."""
    data = np.array(data, copy=True)
    steps = np.arange(data.shape[axis]).reshape([-1 if k == axis else 1 for k in range(data.ndim)])
    lengths = np.asarray(valid_length).reshape([-1 if k == 1 - axis else 1 for k in range(data.ndim)])
    data[np.broadcast_to(steps >= lengths, data.shape)] = mask_value
    return data


def strided_set_python(data: np.ndarray, v: np.ndarray, begin: Sequence[int], end: Sequence[int],
                       strides: Sequence[int] | None = None) -> np.ndarray:
    """A copy of *data* with ``copy[begin:end:strides] = v`` (NumPy's slicing; an axis past
    the lists is taken whole)."""
    strides = list(strides or [])
    out = data.copy()
    out[tuple(slice(begin[k] if k < len(begin) else None, end[k] if k < len(end) else None,
                    strides[k] if k < len(strides) else None) for k in range(data.ndim))] = v
    return out


def matrix_set_diag(input_np: np.ndarray, diagonal: np.ndarray, k: Any = 0, align: str = "RIGHT_LEFT") -> np.ndarray:
    """A copy of *input_np* with diagonal *k* (or each of the band ``(low, high)``, the highest
    first in *diagonal*) replaced, walking each diagonal element by element."""
    out = input_np.copy()
    rows, cols = input_np.shape[-2:]
    low, high = (k, k) if isinstance(k, int) else (k[0], k[-1])
    for d in range(low, high + 1):
        size = min(rows + min(d, 0), cols - max(d, 0))
        side = align.split("_")[0 if d >= 0 else 1]
        shift = diagonal.shape[-1] - size if low != high and side == "RIGHT" else 0
        values = diagonal if low == high else diagonal[..., high - d, :]
        for p in range(size):
            r, c = (p, p + d) if d >= 0 else (p - d, p)
            out[..., r, c] = values[..., p + shift]
    return out


def searchsorted_ref(sorted_sequence: np.ndarray, values: np.ndarray, right: bool, out_dtype: str) -> np.ndarray:
    """NumPy's ``searchsorted`` of each row of *values* in its row of *sorted_sequence* (one
    row for all when it is 1-d)."""
    side = "right" if right else "left"
    if sorted_sequence.ndim == 1:
        return np.searchsorted(sorted_sequence, values, side=side).astype(out_dtype)
    rows = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    flat = values.reshape(rows.shape[0], -1)
    found = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, flat)])
    return found.reshape(values.shape).astype(out_dtype)
