"""NumPy references for the region-of-interest pools (TVM's ``topi.testing.roi_align_nchw_python``
and ``roi_pool_nchw_python``), roi by roi and bin by bin, as Detectron and Fast R-CNN define
them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from topi.utils import pair


def _bilinear(image: np.ndarray, y: float, x: float) -> np.ndarray:
    """*image* ``(C, H, W)`` at (y, x): 0 past one element outside, the edge repeated within it."""
    _, h, w = image.shape
    if y < -1.0 or x < -1.0 or y > h or x > w:
        return np.zeros(image.shape[0])
    y, x = min(max(y, 0.0), h - 1.0), min(max(x, 0.0), w - 1.0)
    y0, x0 = int(math.floor(y)), int(math.floor(x))
    total = np.zeros(image.shape[0])
    for yy, fy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, fx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += fy * fx * image[:, yy, xx]
    return total


def roi_align_nchw_python(a_np: np.ndarray, rois_np: np.ndarray, pooled_size: Any, spatial_scale: float,
                          sample_ratio: int, mode: Any = b"avg") -> np.ndarray:
    """RoI align: each bin the average (or largest) of a grid of bilinear samples."""
    average = mode in (b"avg", "avg", 0)
    ph_n, pw_n = pair("roi_align_nchw_python", "pooled_size", pooled_size)
    out = np.zeros((rois_np.shape[0], a_np.shape[1], ph_n, pw_n))
    images = a_np.astype("float64")  # once: a copy per sample made large images take minutes
    for i, (batch, x1, y1, x2, y2) in enumerate(rois_np.astype("float64")):
        x1, y1, x2, y2 = (v * spatial_scale for v in (x1, y1, x2, y2))
        roi_h, roi_w = max(y2 - y1, 1.0), max(x2 - x1, 1.0)
        bin_h, bin_w = roi_h / ph_n, roi_w / pw_n
        grid_h = sample_ratio if sample_ratio > 0 else int(math.ceil(roi_h / ph_n))
        grid_w = sample_ratio if sample_ratio > 0 else int(math.ceil(roi_w / pw_n))
        for ph in range(ph_n):
            for pw in range(pw_n):
                samples = [_bilinear(images[int(batch)],
                                     y1 + ph * bin_h + (ry + 0.5) * bin_h / grid_h,
                                     x1 + pw * bin_w + (rx + 0.5) * bin_w / grid_w)
                           for ry in range(grid_h) for rx in range(grid_w)]
                out[i, :, ph, pw] = np.mean(samples, axis=0) if average else np.max(samples, axis=0)
    return out.astype(a_np.dtype)


def roi_pool_nchw_python(a_np: np.ndarray, rois_np: np.ndarray, pooled_size: Any, spatial_scale: float) -> np.ndarray:
    """RoI max pooling: each bin's largest element, 0 for an empty bin."""
    _, channels, h, w = a_np.shape
    ph_n, pw_n = pair("roi_pool_nchw_python", "pooled_size", pooled_size)
    out = np.zeros((rois_np.shape[0], channels, ph_n, pw_n), a_np.dtype)
    for i, roi in enumerate(rois_np):
        batch = int(roi[0])
        x1, y1, x2, y2 = (int(np.round(np.float32(v) * np.float32(spatial_scale))) for v in roi[1:])
        roi_h, roi_w = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        f32, eps = np.float32, np.float32(1e-5)  # the kernel's float32 arithmetic, step by step
        bin_h, bin_w = f32(f32(roi_h) / f32(ph_n)), f32(f32(roi_w) / f32(pw_n))
        for ph in range(ph_n):
            for pw in range(pw_n):
                h0 = min(max(int(math.floor(f32(f32(ph) * bin_h) + eps)) + y1, 0), h)
                w0 = min(max(int(math.floor(f32(f32(pw) * bin_w) + eps)) + x1, 0), w)
                h1 = min(max(int(math.ceil(f32(f32(ph + 1) * bin_h) - eps)) + y1, 0), h)
                w1 = min(max(int(math.ceil(f32(f32(pw + 1) * bin_w) - eps)) + x1, 0), w)
                if h0 < h1 and w0 < w1:
                    out[i, :, ph, pw] = a_np[batch, :, h0:h1, w0:w1].max(axis=(1, 2))
    return out
