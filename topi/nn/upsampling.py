"""Upsampling (TVM's ``topi.nn.upsampling`` and ``upsampling3d``): the spatial axes scaled,
each output element the nearest input element or the (bi/tri)linear mix of those around it."""

from __future__ import annotations

from typing import Any

from schedule import Tensor
from schedule.ir import arith
from topi.image.resize import resize
from topi.nn.pooling import spatial_axes
from topi.utils import const_value


def _scaled(op: str, size: Any, factor: float) -> Any:
    n = const_value(size)
    if n is not None:
        return int(round(n * factor))
    if float(factor).is_integer():
        return arith.mul(size, int(factor))
    raise ValueError(f"topi.nn.{op}: a symbolic axis ({size}) needs an integer scale, got {factor}")


def _upsample(op: str, data: Tensor, scales: tuple[Any, ...], layout: str, linear: bool, mode: str,
              output_shape: Any) -> Tensor:
    """:func:`topi.image.resize.resize` of *data*'s spatial axes to their sizes times *scales*
    (rounded), as TVM's upsampling calls resize2d and resize3d."""
    rank = len(scales)
    axes = spatial_axes(op, data, layout, rank)
    for k, factor in enumerate(scales):
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or factor <= 0:
            raise ValueError(f"topi.nn.{op}: scale {'dhw'[3 - rank + k]} must be a positive number, got {factor!r}")
    size = [_scaled(op, data.shape[a], f) for a, f in zip(axes, scales)]
    if output_shape is not None:
        size = [output_shape[a] for a in axes] if len(output_shape) == len(data.shape) else list(output_shape)
    return resize(op, data, None, size, layout, "linear" if linear else "nearest_neighbor", mode, "", -0.5, 0, 0.0,
                  None, rank)


def upsampling(data: Tensor, scale_h: float, scale_w: float, layout: str = "NCHW",
               method: str = "nearest_neighbor", align_corners: bool = False, output_shape: Any = None) -> Tensor:
    """*data* with H scaled by *scale_h* and W by *scale_w* (rounded), or to *output_shape*
    (rows, cols). An output coordinate maps to ``y * in / out`` (``y * (in - 1) / (out - 1)`` with
    *align_corners*); ``nearest_neighbor`` takes the pixel there (rounded down, or to the nearest
    with *align_corners*), ``bilinear`` mixes the four around it."""
    if method not in ("nearest_neighbor", "bilinear"):
        raise ValueError(f"topi.nn.upsampling: method must be 'nearest_neighbor' or 'bilinear', got {method!r}")
    return _upsample("upsampling", data, (scale_h, scale_w), layout, method == "bilinear",
                     "align_corners" if align_corners else "asymmetric", output_shape)


def upsampling3d(data: Tensor, scale_d: float, scale_h: float, scale_w: float, layout: str = "NCDHW",
                 method: str = "nearest_neighbor", coordinate_transformation_mode: str = "half_pixel",
                 output_shape: Any = None) -> Tensor:
    """:func:`upsampling` of the D, H and W axes; ``trilinear`` mixes the eight elements around
    a point. *coordinate_transformation_mode* is ``asymmetric`` (``z * in / out``),
    ``align_corners`` or ``half_pixel`` (``(z + 0.5) * in / out - 0.5``)."""
    if method not in ("nearest_neighbor", "trilinear"):
        raise ValueError(f"topi.nn.upsampling3d: method must be 'nearest_neighbor' or 'trilinear', got {method!r}")
    return _upsample("upsampling3d", data, (scale_d, scale_h, scale_w), layout, method == "trilinear",
                     coordinate_transformation_mode, output_shape)
