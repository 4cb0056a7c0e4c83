"""NumPy references for the index-reading transforms: gather, gather_nd, one_hot, sequence_mask."""

from __future__ import annotations

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
