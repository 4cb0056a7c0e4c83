"""Upsampling (TVM's ``topi.nn.upsampling`` and ``upsampling3d``): the spatial axes scaled,
each output element the nearest input element or the (bi/tri)linear mix of those around it."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.nn.pooling import spatial_axes
from topi.utils import const_value

#: How an output coordinate maps to an input one (TVM's coordinate transformation modes).
MODES = ("asymmetric", "align_corners", "half_pixel")


def _scaled(op: str, size: Any, factor: float) -> Any:
    n = const_value(size)
    if n is not None:
        return int(round(n * factor))
    if float(factor).is_integer():
        return arith.mul(size, int(factor))
    raise ValueError(f"topi.nn.{op}: a symbolic axis ({size}) needs an integer scale, got {factor}")


def resize(op: str, data: Tensor, scales: tuple[Any, ...], layout: str, linear: bool, mode: str,
           output_shape: Any = None) -> Tensor:
    """*data* with its ``len(scales)`` spatial axes scaled (rounded) or set to *output_shape*;
    nearest (floor, or rounded in the ``align_corners`` mode) or linear in every axis."""
    rank = len(scales)
    axes = spatial_axes(op, data, layout, rank)
    if mode not in MODES:
        raise ValueError(f"topi.nn.{op}: coordinate_transformation_mode must be one of {MODES}, got {mode!r}")
    for k, factor in enumerate(scales):
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or factor <= 0:
            raise ValueError(f"topi.nn.{op}: scale {'dhw'[3 - rank + k]} must be a positive number, got {factor!r}")
    sizes = [data.shape[a] for a in axes]
    outs = list(output_shape) if output_shape is not None else [_scaled(op, n, f) for n, f in zip(sizes, scales)]
    shape = list(data.shape)
    for a, o in zip(axes, outs):
        shape[a] = o

    def coordinate(x: Any, k: int) -> Any:
        size, out = sizes[k], outs[k]
        if mode == "align_corners":
            ratio = te.div(arith.convert(arith.sub(size, 1)).astype("float32"),
                           te.max(arith.convert(arith.sub(out, 1)), 1).astype("float32"))
            return x.astype("float32") * ratio
        ratio = te.div(arith.convert(size).astype("float32"), arith.convert(out).astype("float32"))
        if mode == "half_pixel":
            return (x.astype("float32") + 0.5) * ratio - 0.5
        return x.astype("float32") * ratio

    def clamp(i: Any, k: int) -> Any:
        return te.max(te.min(i, arith.sub(sizes[k], 1)), 0)

    def at(index: tuple[Any, ...], where: list[Any]) -> Any:
        full = list(index)
        for a, w in zip(axes, where):
            full[a] = w
        return data[tuple(full)]

    if not linear:
        def nearest(*i: Any) -> Any:
            picks = []
            for k, a in enumerate(axes):
                c = coordinate(i[a], k)
                picks.append(clamp((te.round(c) if mode == "align_corners" else te.floor(c)).astype("int32"), k))
            return at(i, picks)
        return te.compute(shape, nearest, name="resize", tag=tag.INJECTIVE)

    def mix(*i: Any) -> Any:
        lows, highs, fracs = [], [], []
        for k, a in enumerate(axes):
            c = coordinate(i[a], k)
            low = te.floor(c).astype("int32")
            lows.append(clamp(low, k))
            highs.append(clamp(low + 1, k))
            fracs.append((c - te.floor(c)).astype(data.dtype))
        # the 2**rank corners, then interpolated one axis at a time, the innermost first
        values: dict[tuple[int, ...], Any] = {}
        for bits in range(2 ** rank):
            pick = tuple((bits >> (rank - 1 - k)) & 1 for k in range(rank))
            values[pick] = at(i, [highs[k] if pick[k] else lows[k] for k in range(rank)])
        for k in reversed(range(rank)):
            values = {p[:k]: values[(*p[:k], 0)] * (1 - fracs[k]) + values[(*p[:k], 1)] * fracs[k]
                      for p in values}
        return values[()]
    return te.compute(shape, mix, name="resize", tag=tag.INJECTIVE)


def upsampling(data: Tensor, scale_h: float, scale_w: float, layout: str = "NCHW",
               method: str = "nearest_neighbor", align_corners: bool = False, output_shape: Any = None) -> Tensor:
    """*data* with H scaled by *scale_h* and W by *scale_w* (rounded), or to *output_shape*
    (rows, cols). An output coordinate maps to ``y * in / out`` (``y * (in - 1) / (out - 1)`` with
    *align_corners*); ``nearest_neighbor`` takes the pixel there (rounded down, or to the nearest
    with *align_corners*), ``bilinear`` mixes the four around it."""
    if method not in ("nearest_neighbor", "bilinear"):
        raise ValueError(f"topi.nn.upsampling: method must be 'nearest_neighbor' or 'bilinear', got {method!r}")
    return resize("upsampling", data, (scale_h, scale_w), layout, method == "bilinear",
                  "align_corners" if align_corners else "asymmetric", output_shape)


def upsampling3d(data: Tensor, scale_d: float, scale_h: float, scale_w: float, layout: str = "NCDHW",
                 method: str = "nearest_neighbor", coordinate_transformation_mode: str = "half_pixel",
                 output_shape: Any = None) -> Tensor:
    """:func:`upsampling` of the D, H and W axes; ``trilinear`` mixes the eight elements around
    a point. *coordinate_transformation_mode* is ``asymmetric`` (``z * in / out``),
    ``align_corners`` or ``half_pixel`` (``(z + 0.5) * in / out - 0.5``)."""
    if method not in ("nearest_neighbor", "trilinear"):
        raise ValueError(f"topi.nn.upsampling3d: method must be 'nearest_neighbor' or 'trilinear', got {method!r}")
    return resize("upsampling3d", data, (scale_d, scale_h, scale_w), layout, method == "trilinear",
                  coordinate_transformation_mode, output_shape)
