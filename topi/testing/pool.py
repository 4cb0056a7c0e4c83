"""NumPy references for pooling (TVM's ``topi.testing.poolnd_python`` and ``adaptive_pool``),
written as loops over windows, the plainest reading of the definition."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np


def _moved(np_data: np.ndarray, layout: str) -> np.ndarray:
    """*np_data* with its H and W axes last."""
    return np.moveaxis(np_data, [layout.index("H"), layout.index("W")], [-2, -1])


def _back(out: np.ndarray, layout: str) -> np.ndarray:
    return np.moveaxis(out, [-2, -1], [layout.index("H"), layout.index("W")])


def poolnd_python(np_data: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilation: Sequence[int],
                  padding_before: Sequence[int], padding_after: Sequence[int], pool_type: str,
                  count_include_pad: bool = True, ceil_mode: bool = False, layout: str = "NCHW") -> np.ndarray:
    """Max or average pooling over H and W. A ceil-mode window may run past the bottom padding;
    an average divides by the window's taps inside the padded input (*count_include_pad*) or
    inside the input alone."""
    data = _moved(np_data, layout).astype("float64")
    size = data.shape[-2:]
    out_size = []
    for k in range(2):
        room = size[k] + padding_before[k] + padding_after[k] - (kernel[k] - 1) * dilation[k] - 1
        out_size.append((room + (strides[k] - 1 if ceil_mode else 0)) // strides[k] + 1)
    out = np.zeros(data.shape[:-2] + tuple(out_size))
    lowest = (np.finfo if np_data.dtype.kind == "f" else np.iinfo)(np_data.dtype).min
    for y, x in itertools.product(range(out_size[0]), range(out_size[1])):
        taps = [[p * strides[k] - padding_before[k] + t * dilation[k] for t in range(kernel[k])]
                for k, p in enumerate((y, x))]
        inside = [[q for q in taps[k] if 0 <= q < size[k]] for k in range(2)]
        values = data[..., inside[0], :][..., inside[1]]
        if pool_type == "max":  # a window wholly in the padding gives the dtype's lowest value
            out[..., y, x] = values.max(axis=(-2, -1)) if values.size else lowest
        elif count_include_pad:
            padded = [[q for q in taps[k] if q < size[k] + padding_after[k]] for k in range(2)]
            out[..., y, x] = values.sum(axis=(-2, -1)) / max(len(padded[0]) * len(padded[1]), 1)
        else:
            out[..., y, x] = values.sum(axis=(-2, -1)) / max(len(inside[0]) * len(inside[1]), 1)
    return _back(out, layout).astype(np_data.dtype)


def adaptive_pool(np_data: np.ndarray, out_size: Sequence[int], pool_type: str, layout: str = "NCHW") -> np.ndarray:
    """Pooling into an *out_size* grid: output row i covers rows ``floor(i*H/rows)`` up to
    ``ceil((i+1)*H/rows)``."""
    data = _moved(np_data, layout)
    h, w = data.shape[-2:]
    out = np.zeros(data.shape[:-2] + tuple(out_size), dtype=np_data.dtype)
    for y, x in itertools.product(range(out_size[0]), range(out_size[1])):
        window = data[..., y * h // out_size[0]:-(-(y + 1) * h // out_size[0]),
                      x * w // out_size[1]:-(-(x + 1) * w // out_size[1])]
        out[..., y, x] = window.max(axis=(-2, -1)) if pool_type == "max" else window.mean(axis=(-2, -1))
    return _back(out, layout)
