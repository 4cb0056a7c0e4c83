"""Resizing (TVM's ``topi.image.resize1d``, ``resize2d``, ``resize3d`` and ``crop_and_resize``):
each output element reads the input at a coordinate its position maps to, per spatial axis, by
a coordinate transformation mode, then takes the nearest element (by a rounding method), or
mixes the 2 (linear) or 4 (cubic) around it per axis, the last axis first. Coordinates and the
mix are float32, as in TVM; reads outside the input take its edge. In ``tf_crop_and_resize``
mode (and crop_and_resize) a coordinate outside the input gives ``extrapolation_value``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.nn.pooling import spatial_axes
from topi.transform.shape import tensor

MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn",
         "tf_crop_and_resize")
ROUNDING = ("", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
METHODS = ("nearest_neighbor", "linear", "cubic")


def _f32(x: Any) -> Any:
    return arith.convert(x).astype("float32")


def source_coordinate(x: Any, size: Any, out: Any, mode: str, start: Any = 0.0, end: Any = 1.0) -> Any:
    """The input coordinate output position *x* maps to along an axis of *size* resized to *out*."""
    scale = te.div(_f32(size), _f32(out))
    xf = _f32(x)
    if mode == "half_pixel":
        return (xf + 0.5) * scale - 0.5
    if mode == "align_corners":
        return te.div(_f32(arith.sub(size, 1)), _f32(arith.sub(out, 1))) * xf
    if mode == "asymmetric":
        return scale * xf
    if mode == "pytorch_half_pixel":
        return te.if_then_else(arith.convert(out) > 1, (xf + 0.5) * scale - 0.5, arith.const(0.0, "float32"))
    if mode == "tf_half_pixel_for_nn":
        return (xf + 0.5) * scale
    last = _f32(arith.sub(size, 1))
    start, end = _f32(start), _f32(end)
    return te.if_then_else(arith.convert(out) > 1, start * last + xf * (end - start) * last / _f32(arith.sub(out, 1)),
                           arith.const(0.5, "float32") * (start + end) * last)


def nearest_index(c: Any, rounding: str) -> Any:
    """The element *rounding* picks for coordinate *c*."""
    if rounding == "round":
        return te.round(c).astype("int32")
    if rounding == "round_prefer_floor":
        return te.ceil(c - 0.5).astype("int32")
    if rounding == "round_prefer_ceil":
        return te.floor(c + 0.5).astype("int32")
    if rounding == "floor":
        return te.floor(c + 1e-5).astype("int32")
    return te.ceil(c - 1e-5).astype("int32")


def cubic_weights(t: Any, alpha: float) -> list[Any]:
    """The weights of the four elements at -1, 0, 1, 2 around a point *t* past the first
    (Keys' cubic convolution with parameter *alpha*)."""
    t2, t3 = t * t, t * t * t
    return [alpha * (t3 - 2 * t2 + t), (alpha + 2) * t3 - (3 + alpha) * t2 + 1,
            -(alpha + 2) * t3 + (3 + 2 * alpha) * t2 - alpha * t, -alpha * t3 + alpha * t2]


def _check(op: str, method: str, mode: str, rounding: str) -> None:
    if method not in METHODS:
        raise ValueError(f"topi.image.{op}: method must be one of {METHODS}, got {method!r}")
    if mode not in MODES:
        raise ValueError(f"topi.image.{op}: coordinate_transformation_mode must be one of {MODES}, got {mode!r}")
    if rounding not in ROUNDING:
        raise ValueError(f"topi.image.{op}: rounding_method must be one of {ROUNDING[1:]} (or '' for the mode's "
                         f"default), got {rounding!r}")


class Sampler:
    """Values of *data* at float coordinates of its *axes*, edges repeated, as resize reads them."""

    def __init__(self, data: Tensor, axes: Sequence[int], method: str, rounding: str, mode: str, alpha: float,
                 exclude: bool) -> None:
        self.data, self.axes, self.method, self.alpha, self.exclude = data, list(axes), method, alpha, exclude
        self.rounding = rounding or ("round" if mode == "align_corners" else "floor")
        self.sizes = [data.shape[a] for a in self.axes]

    def read(self, index: Sequence[Any], where: Sequence[Any]) -> Any:
        full = list(index)
        for a, w, size in zip(self.axes, where, self.sizes):
            full[a] = te.max(te.min(w, arith.sub(size, 1)), 0)
        return self.data[tuple(full)].astype("float32")

    def __call__(self, index: Sequence[Any], coords: Sequence[Any]) -> Any:
        if self.method == "nearest_neighbor":
            return self.read(index, [nearest_index(c, self.rounding) for c in coords])
        rank = len(coords)
        lows = [te.floor(c).astype("int32") for c in coords]
        fracs = [c - te.floor(c) for c in coords]
        if self.method == "linear":
            offsets, weights = [0, 1], [[1.0 - f, f] for f in fracs]
        else:
            offsets = [-1, 0, 1, 2]
            weights = [self._cubic(f, low, size) for f, low, size in zip(fracs, lows, self.sizes)]
        # The taps of every axis, then mixed one axis at a time, the last axis first.
        values: dict[tuple[int, ...], Any] = {}
        for pick in _product(len(offsets), rank):
            values[pick] = self.read(index, [low + offsets[p] for low, p in zip(lows, pick)])
        for k in reversed(range(rank)):
            grouped: dict[tuple[int, ...], Any] = {}
            for p in values:
                if p[:k] not in grouped:
                    grouped[p[:k]] = _mix([values[(*p[:k], j)] for j in range(len(offsets))], weights[k])
            values = grouped
        return values[()]

    def _cubic(self, t: Any, low: Any, size: Any) -> list[Any]:
        w = cubic_weights(t, self.alpha)
        if not self.exclude:
            return w
        w = [te.if_then_else(te.any(low - 1 + i < 0, low + i > size), arith.const(0.0, "float32"), x)
             for i, x in enumerate(w)]
        total = w[0] + w[1] + w[2] + w[3]
        return [x / total for x in w]


def _product(n: int, rank: int) -> list[tuple[int, ...]]:
    picks: list[tuple[int, ...]] = [()]
    for _ in range(rank):
        picks = [(*p, j) for p in picks for j in range(n)]
    return picks


def _mix(values: list[Any], weights: list[Any]) -> Any:
    if len(values) == 2:  # a * (1 - t) + b * t, as TVM's lerp
        return values[0] * weights[0] + values[1] * weights[1]
    out = values[0] * weights[0]
    for v, w in zip(values[1:], weights[1:]):
        out = out + v * w
    return out


def _outside(coords: Sequence[Any], sizes: Sequence[Any]) -> Any:
    conds = []
    for c, size in zip(coords, sizes):
        conds += [c < 0, c > _f32(arith.sub(size, 1))]
    return te.any(*conds)


def resize(op: str, data: Tensor, roi: Any, size: Any, layout: str, method: str, mode: str, rounding: str,
           alpha: float, exclude: Any, extrapolation_value: float, out_dtype: str | None, rank: int,
           output_shape: Any = None) -> Tensor:
    """The resize of *data*'s *rank* spatial axes of *layout* to *size* (see the module)."""
    data = tensor(f"image.{op}", data)
    _check(op, method, mode, rounding)
    axes = spatial_axes(op, data, layout, rank)
    if not isinstance(size, Sequence) or len(size) != rank:
        raise ValueError(f"topi.image.{op}: size is {rank} output extents, got {size!r}")
    roi = list(roi) if roi is not None else [0.0] * (2 * rank)
    if len(roi) != 2 * rank:
        raise ValueError(f"topi.image.{op}: roi is {2 * rank} values (the starts, then the ends), got {roi!r}")
    sampler = Sampler(data, axes, method, rounding, mode, alpha, bool(exclude))
    shape = list(output_shape) if output_shape is not None else list(data.shape)
    if output_shape is None:
        for a, n in zip(axes, size):
            shape[a] = n
    outs = [arith.convert(size[k]) for k in range(rank)]

    def element(*i: Any) -> Any:
        coords = [source_coordinate(i[a], sampler.sizes[k], outs[k], mode, roi[k], roi[rank + k])
                  for k, a in enumerate(axes)]
        value = sampler(i, coords)
        if mode == "tf_crop_and_resize":
            value = te.if_then_else(_outside(coords, sampler.sizes), arith.const(extrapolation_value, "float32"),
                                    value)
        return value.astype(out_dtype or data.dtype)
    return te.compute(shape, element, name="resize", tag=tag.INJECTIVE)


def resize1d(data: Tensor, roi: Any, size: Any, layout: str = "NCW", method: str = "linear",
             coordinate_transformation_mode: str = "half_pixel", rounding_method: str = "",
             bicubic_alpha: float = -0.5, bicubic_exclude: Any = 0, extrapolation_value: float = 0.0,
             out_dtype: str | None = None, output_shape: Any = None) -> Tensor:
    """*data*'s W axis resized to ``size[0]`` (*roi* ``[start, end]`` for ``tf_crop_and_resize``)."""
    return resize("resize1d", data, roi, size, layout, method, coordinate_transformation_mode, rounding_method,
                  bicubic_alpha, bicubic_exclude, extrapolation_value, out_dtype, 1, output_shape)


def resize2d(data: Tensor, roi: Any, size: Any, layout: str = "NCHW", method: str = "linear",
             coordinate_transformation_mode: str = "half_pixel", rounding_method: str = "",
             bicubic_alpha: float = -0.5, bicubic_exclude: Any = 0, extrapolation_value: float = 0.0,
             out_dtype: str | None = None, output_shape: Any = None) -> Tensor:
    """*data*'s H and W axes resized to *size* (*roi* ``[start_h, start_w, end_h, end_w]``)."""
    return resize("resize2d", data, roi, size, layout, method, coordinate_transformation_mode, rounding_method,
                  bicubic_alpha, bicubic_exclude, extrapolation_value, out_dtype, 2, output_shape)


def resize3d(data: Tensor, roi: Any, size: Any, layout: str = "NCDHW", method: str = "linear",
             coordinate_transformation_mode: str = "half_pixel", rounding_method: str = "",
             bicubic_alpha: float = -0.5, bicubic_exclude: Any = 0, extrapolation_value: float = 0.0,
             out_dtype: str | None = None, output_shape: Any = None) -> Tensor:
    """*data*'s D, H and W axes resized to *size* (*roi* the three starts, then the three ends)."""
    return resize("resize3d", data, roi, size, layout, method, coordinate_transformation_mode, rounding_method,
                  bicubic_alpha, bicubic_exclude, extrapolation_value, out_dtype, 3, output_shape)


def crop_and_resize(data: Tensor, boxes: Tensor, box_indices: Tensor, crop_size: Any, layout: str = "NCHW",
                    method: str = "bilinear", extrapolation_value: float | None = None,
                    out_dtype: str | None = None) -> Tensor:
    """For each box ``(y1, x1, y2, x2)`` (coordinates normalized to [0, 1]) of image
    ``box_indices[b]``, that region resized to *crop_size*: ``y = y1 * (H - 1) + i * (y2 - y1) *
    (H - 1) / (crop_h - 1)`` (the box's centre for a crop of one), nearest rounded or bilinear;
    outside the image, *extrapolation_value* (0 by default)."""
    data, boxes, box_indices = (tensor("image.crop_and_resize", t) for t in (data, boxes, box_indices))
    if method not in ("bilinear", "nearest_neighbor"):
        raise ValueError(f"topi.image.crop_and_resize: method is 'bilinear' or 'nearest_neighbor', not {method!r}")
    axes = spatial_axes("crop_and_resize", data, layout, 2)
    if not isinstance(crop_size, Sequence) or len(crop_size) != 2:
        raise ValueError(f"topi.image.crop_and_resize: crop_size is (height, width), got {crop_size!r}")
    batch_axis = layout.index("N")
    sampler = Sampler(data, axes, "linear" if method == "bilinear" else method, "round", "tf_crop_and_resize", -0.5,
                      False)
    shape = list(data.shape)
    shape[batch_axis] = box_indices.shape[0]
    for a, n in zip(axes, crop_size):
        shape[a] = n
    fill = arith.const(0.0 if extrapolation_value is None else extrapolation_value, "float32")

    def element(*i: Any) -> Any:
        b = i[batch_axis]
        coords = []
        for k, a in enumerate(axes):
            lo, hi = _f32(boxes[b, k]), _f32(boxes[b, k + 2])
            last = _f32(arith.sub(sampler.sizes[k], 1))
            out = arith.convert(crop_size[k])
            coords.append(te.if_then_else(out > 1, lo * last + _f32(i[a]) * (hi - lo) * last / _f32(arith.sub(out, 1)),
                                          arith.const(0.5, "float32") * (lo + hi) * last))
        index = list(i)
        index[batch_axis] = box_indices[b]
        value = te.if_then_else(_outside(coords, sampler.sizes), fill, sampler(index, coords))
        return value.astype(out_dtype or data.dtype)
    return te.compute(shape, element, name="crop_and_resize", tag=tag.INJECTIVE)
