"""NumPy references for the image operators (TVM's ``topi.testing.crop_and_resize_python``,
``affine_grid_python`` and ``grid_sample_python``), point by point in float64, as PyTorch and
TensorFlow define them."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np


def crop_and_resize_python(image: np.ndarray, boxes: np.ndarray, box_indices: np.ndarray,
                           crop_size: Sequence[int], layout: str, method: str = "bilinear",
                           extrapolation_value: float = 0.0) -> np.ndarray:
    """Each box's region of its image resized to *crop_size* (see ``topi.image.crop_and_resize``)."""
    img = image if layout == "NHWC" else image.transpose(0, 2, 3, 1)
    _, h, w, c = img.shape
    ch, cw = crop_size
    out = np.empty((len(box_indices), ch, cw, c))
    for b, (y1, x1, y2, x2) in enumerate(np.asarray(boxes, "float64")):
        src = img[box_indices[b]].astype("float64")
        ys = [y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (ch - 1) if ch > 1 else 0.5 * (y1 + y2) * (h - 1)
              for i in range(ch)]
        xs = [x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (cw - 1) if cw > 1 else 0.5 * (x1 + x2) * (w - 1)
              for j in range(cw)]
        for i, y in enumerate(ys):
            for j, x in enumerate(xs):
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[b, i, j] = extrapolation_value
                elif method == "bilinear":
                    y0, x0 = int(np.floor(y)), int(np.floor(x))
                    y1_, x1_ = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
                    fy, fx = y - y0, x - x0
                    top = src[y0, x0] * (1 - fx) + src[y0, x1_] * fx
                    bottom = src[y1_, x0] * (1 - fx) + src[y1_, x1_] * fx
                    out[b, i, j] = top * (1 - fy) + bottom * fy
                else:
                    out[b, i, j] = src[int(np.round(y)), int(np.round(x))]
    out = out.astype(image.dtype)
    return out if layout == "NHWC" else out.transpose(0, 3, 1, 2)


def affine_grid_python(data: np.ndarray, target_shape: Sequence[int]) -> np.ndarray:
    """The grid over [-1, 1] of *target_shape* mapped through each 2 x 3 matrix of *data*."""
    h, w = target_shape
    ys = -1 + np.arange(h) * (2.0 - 1e-7) / (h - 1)
    xs = -1 + np.arange(w) * (2.0 - 1e-7) / (w - 1)
    yy, xx = np.meshgrid(ys, xs, indexing="ij")
    points = np.stack([xx, yy, np.ones_like(xx)])  # (3, h, w)
    return np.einsum("ndk,khw->ndhw", data.astype("float64"), points).astype(data.dtype)


def _unnormalize(g: float, size: int, align_corners: bool) -> float:
    return (g + 1) * (size - 1) / 2 if align_corners else ((g + 1) * size - 1) / 2


def _reflect(x: float, size: int, align_corners: bool) -> float:
    low, high = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
    span = high - low
    if span <= 0:
        return 0.0
    distance = abs(x - low)
    flips, extra = divmod(distance, span)
    return low + extra if int(flips) % 2 == 0 else high - extra


def _place(x: float, size: int, padding_mode: str, align_corners: bool) -> float:
    if padding_mode == "reflection":
        x = _reflect(x, size, align_corners)
    if padding_mode in ("border", "reflection"):
        x = min(max(x, 0.0), size - 1.0)
    return x


def _cubic(t: float, a: float = -0.75) -> list[float]:
    def near(s: float) -> float:
        return ((a + 2) * s - (a + 3)) * s * s + 1

    def far(s: float) -> float:
        return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sample_python(data: np.ndarray, grid: np.ndarray, method: str = "bilinear", layout: str = "NCHW",
                       padding_mode: str = "zeros", align_corners: bool = True) -> np.ndarray:
    """*data* (NCHW or NCDHW) read at the normalized coordinates of *grid* (x first), as
    PyTorch's ``grid_sample``."""
    src = data.astype("float64")
    rank = data.ndim - 2
    sizes = data.shape[2:]
    out = np.zeros((data.shape[0], data.shape[1], *grid.shape[2:]))

    def value(n: int, at: Sequence[int]) -> Any:
        if all(0 <= a < s for a, s in zip(at, sizes)):
            return src[(n, slice(None), *at)]
        return np.zeros(data.shape[1])

    for n in range(data.shape[0]):
        for pos in itertools.product(*(range(e) for e in grid.shape[2:])):
            raw = [_unnormalize(float(grid[(n, rank - 1 - k, *pos)]), sizes[k], align_corners) for k in range(rank)]
            if method == "bicubic":
                y0, x0 = (int(np.floor(r)) for r in raw)
                wy, wx = _cubic(raw[0] - y0), _cubic(raw[1] - x0)
                total = 0.0
                for j, i in itertools.product(range(4), range(4)):
                    yy, xx = y0 - 1 + j, x0 - 1 + i
                    if padding_mode != "zeros":
                        yy = int(_place(float(yy), sizes[0], padding_mode, align_corners))
                        xx = int(_place(float(xx), sizes[1], padding_mode, align_corners))
                    total = total + value(n, (yy, xx)) * wy[j] * wx[i]
                out[(n, slice(None), *pos)] = total
                continue
            at = [_place(r, s, padding_mode, align_corners) for r, s in zip(raw, sizes)]
            if method == "nearest":
                out[(n, slice(None), *pos)] = value(n, [int(np.rint(a)) for a in at])
                continue
            lows = [int(np.floor(a)) for a in at]
            total = 0.0
            for pick in itertools.product((0, 1), repeat=rank):
                weight = np.prod([(a - lo) if p else 1 - (a - lo) for a, lo, p in zip(at, lows, pick)])
                total = total + value(n, [lo + p for lo, p in zip(lows, pick)]) * weight
            out[(n, slice(None), *pos)] = total
    return out.astype(data.dtype)
