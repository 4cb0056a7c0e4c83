"""Region-of-interest pooling (TVM's ``topi.vision.rcnn.roi_align_nchw``, ``roi_align_nhwc``
and ``roi_pool_nchw``): each roi ``(batch, x1, y1, x2, y2)`` (image coordinates, scaled by
``spatial_scale``) is cut into ``pooled_size`` bins. RoI align averages (or takes the largest
of) bilinear samples on a grid in each bin, ``sample_ratio`` per side or as many as the bin is
long; RoI pool takes the largest element of each bin (0 for an empty one). The grids and bins
depend on the rois: their reductions' extents are read while the kernel runs."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi.nn.bilinear import bilinear_sample
from topi.transform.shape import tensor
from topi.utils import get_const_tuple, pair


def _mode(mode: Any) -> bool:
    """Whether *mode* asks for the average (``"avg"``, ``b"avg"``, 0) rather than the largest."""
    if mode in ("avg", b"avg", 0) and not isinstance(mode, bool):
        return True
    if mode in ("max", b"max", 1) and not isinstance(mode, bool):
        return False
    raise ValueError(f"topi.vision.roi_align: mode is 'avg' (0) or 'max' (1), not {mode!r}")


def _roi_align(op: str, data: Tensor, rois: Tensor, pooled_size: Any, spatial_scale: float, mode: Any,
               sample_ratio: int, nchw: bool) -> Tensor:
    data, rois = tensor(f"vision.{op}", data), tensor(f"vision.{op}", rois)
    average = _mode(mode)
    if nchw:
        _, channels, height, width = get_const_tuple(data.shape)
    else:
        _, height, width, channels = get_const_tuple(data.shape)
    num_roi, _ = get_const_tuple(rois.shape)
    ph_n, pw_n = pair(op, "pooled_size", pooled_size)
    dtype = rois.dtype
    scale = arith.const(spatial_scale, dtype)

    def sample(i: Any, c: Any, y: Any, x: Any) -> Any:
        outside = te.any(y < -1.0, x < -1.0, y > float(height), x > float(width))
        y = te.min(te.max(y, arith.const(0.0, dtype)), arith.const(float(height - 1), dtype))
        x = te.min(te.max(x, arith.const(0.0, dtype)), arith.const(float(width - 1), dtype))
        read = (lambda r, q: data[i, c, r, q]) if nchw else (lambda r, q: data[i, r, q, c])
        return te.if_then_else(outside, arith.const(0.0, dtype), bilinear_sample(read, y, x, height - 1, width - 1))

    def element(i: Any, c: Any, ph: Any, pw: Any) -> Any:
        batch = rois[i, 0].astype("int32")
        x1, y1, x2, y2 = (rois[i, k] * scale for k in (1, 2, 3, 4))
        roi_h = te.max(y2 - y1, arith.const(1.0, dtype))
        roi_w = te.max(x2 - x1, arith.const(1.0, dtype))
        bin_h, bin_w = roi_h / float(ph_n), roi_w / float(pw_n)
        if sample_ratio > 0:
            grid_h = grid_w = arith.const(sample_ratio, "int32")
        else:
            grid_h, grid_w = te.ceil(roi_h / float(ph_n)).astype("int32"), te.ceil(roi_w / float(pw_n)).astype("int32")
        rh, rw = te.reduce_axis((0, grid_h), name="rh"), te.reduce_axis((0, grid_w), name="rw")
        y = y1 + ph.astype(dtype) * bin_h + (rh.astype(dtype) + 0.5) * bin_h / grid_h.astype(dtype)
        x = x1 + pw.astype(dtype) * bin_w + (rw.astype(dtype) + 0.5) * bin_w / grid_w.astype(dtype)
        value = sample(batch, c, y, x)
        if average:
            return te.sum(value / (grid_h * grid_w).astype(dtype), axis=[rh, rw])
        return te.max(value, axis=[rh, rw])

    if nchw:
        return te.compute((num_roi, channels, ph_n, pw_n), element, tag="pool,roi_align_nchw")
    return te.compute((num_roi, ph_n, pw_n, channels), lambda i, ph, pw, c: element(i, c, ph, pw),
                      tag="pool,roi_align_nchw")


def roi_align_nchw(data: Tensor, rois: Tensor, pooled_size: Any, spatial_scale: float, mode: Any,
                   sample_ratio: int = -1) -> Tensor:
    """RoI align of NCHW *data* by *rois* ``(num_roi, 5)``: ``(num_roi, C, ph, pw)``."""
    return _roi_align("roi_align_nchw", data, rois, pooled_size, spatial_scale, mode, sample_ratio, True)


def roi_align_nhwc(data: Tensor, rois: Tensor, pooled_size: Any, spatial_scale: float, mode: Any,
                   sample_ratio: int = -1) -> Tensor:
    """RoI align of NHWC *data*: ``(num_roi, ph, pw, C)``."""
    return _roi_align("roi_align_nhwc", data, rois, pooled_size, spatial_scale, mode, sample_ratio, False)


def roi_pool_nchw(data: Tensor, rois: Tensor, pooled_size: Any, spatial_scale: float) -> Tensor:
    """RoI max pooling of NCHW *data*: each roi's corners rounded after scaling, its bins
    ``floor``/``ceil`` of their fractional edges, clipped to the image."""
    data, rois = tensor("vision.roi_pool_nchw", data), tensor("vision.roi_pool_nchw", rois)
    _, channels, height, width = get_const_tuple(data.shape)
    num_roi, _ = get_const_tuple(rois.shape)
    ph_n, pw_n = pair("roi_pool_nchw", "pooled_size", pooled_size)
    dtype = rois.dtype
    eps = arith.const(1e-5, dtype)

    def element(i: Any, c: Any, ph: Any, pw: Any) -> Any:
        batch = rois[i, 0].astype("int32")
        x1, y1, x2, y2 = (te.round(rois[i, k] * arith.const(spatial_scale, dtype)).astype("int32")
                          for k in (1, 2, 3, 4))
        roi_h = te.max(y2 - y1 + 1, arith.const(1, "int32"))
        roi_w = te.max(x2 - x1 + 1, arith.const(1, "int32"))
        bin_h, bin_w = roi_h.astype(dtype) / float(ph_n), roi_w.astype(dtype) / float(pw_n)

        def clip(v: Any, limit: int) -> Any:
            return te.min(te.max(v, 0), limit)
        h0 = clip(te.floor(ph.astype(dtype) * bin_h + eps).astype("int32") + y1, height)
        w0 = clip(te.floor(pw.astype(dtype) * bin_w + eps).astype("int32") + x1, width)
        h1 = clip(te.ceil((ph + 1).astype(dtype) * bin_h - eps).astype("int32") + y1, height)
        w1 = clip(te.ceil((pw + 1).astype(dtype) * bin_w - eps).astype("int32") + x1, width)
        filled = te.all(h0 < h1, w0 < w1)
        largest = te.comm_reducer(lambda a, b: te.max(a, b),
                                  lambda t: te.if_then_else(filled, te.min_value(t), arith.const(0.0, t)), name="max")
        rh, rw = te.reduce_axis((0, h1 - h0), "rh"), te.reduce_axis((0, w1 - w0), "rw")
        return largest(data[batch, c, h0 + rh, w0 + rw], axis=[rh, rw])
    return te.compute((num_roi, channels, ph_n, pw_n), element, tag="pool,roi_pool")
