"""Upsampling (TVM's ``topi.nn.upsampling``): the H and W axes scaled, each output pixel the
nearest input pixel or the bilinear mix of the four around it."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.nn.pooling import spatial_axes
from topi.utils import const_value


def _scaled(size: Any, factor: float) -> Any:
    n = const_value(size)
    if n is not None:
        return int(round(n * factor))
    if float(factor).is_integer():
        return arith.mul(size, int(factor))
    raise ValueError(f"topi.nn.upsampling: a symbolic axis ({size}) needs an integer scale, got {factor}")


def upsampling(data: Tensor, scale_h: float, scale_w: float, layout: str = "NCHW",
               method: str = "nearest_neighbor", align_corners: bool = False, output_shape: Any = None) -> Tensor:
    """*data* with H scaled by *scale_h* and W by *scale_w* (rounded), or to *output_shape*
    (rows, cols). An output coordinate maps to ``y * in / out`` (``y * (in - 1) / (out - 1)`` with
    *align_corners*); ``nearest_neighbor`` takes the pixel there (rounded down, or to the nearest
    with *align_corners*), ``bilinear`` mixes the four around it."""
    rows_at, cols_at = spatial_axes("upsampling", data, layout)
    if method not in ("nearest_neighbor", "bilinear"):
        raise ValueError(f"topi.nn.upsampling: method must be 'nearest_neighbor' or 'bilinear', got {method!r}")
    for what, factor in (("scale_h", scale_h), ("scale_w", scale_w)):
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or factor <= 0:
            raise ValueError(f"topi.nn.upsampling: {what} must be a positive number, got {factor!r}")
    rows, cols = data.shape[rows_at], data.shape[cols_at]
    out_rows, out_cols = (output_shape if output_shape is not None
                          else (_scaled(rows, scale_h), _scaled(cols, scale_w)))
    shape = list(data.shape)
    shape[rows_at], shape[cols_at] = out_rows, out_cols

    def coordinate(x: Any, size: Any, out: Any) -> Any:
        src, dst = (arith.sub(size, 1), arith.sub(out, 1)) if align_corners else (size, out)
        ratio = te.div(arith.convert(src).astype("float32"), te.max(arith.convert(dst), 1).astype("float32"))
        return x.astype("float32") * ratio

    def nearest(y: Any, size: Any, out: Any) -> Any:
        c = coordinate(y, size, out)
        pick = te.round(c) if align_corners else te.floor(c)
        return te.min(pick.astype("int32"), arith.sub(size, 1))

    def at(index: Any, y: Any, x: Any) -> Any:
        where = list(index)
        where[rows_at], where[cols_at] = y, x
        return data[tuple(where)]

    if method == "nearest_neighbor":
        return te.compute(shape, lambda *i: at(i, nearest(i[rows_at], rows, out_rows),
                                                nearest(i[cols_at], cols, out_cols)),
                          name="resize", tag=tag.INJECTIVE)

    def bilinear(*i: Any) -> Any:
        cy, cx = coordinate(i[rows_at], rows, out_rows), coordinate(i[cols_at], cols, out_cols)
        y0, x0 = te.floor(cy).astype("int32"), te.floor(cx).astype("int32")
        fy, fx = (cy - te.floor(cy)).astype(data.dtype), (cx - te.floor(cx)).astype(data.dtype)
        y1, x1 = te.min(y0 + 1, arith.sub(rows, 1)), te.min(x0 + 1, arith.sub(cols, 1))
        y0, x0 = te.min(y0, arith.sub(rows, 1)), te.min(x0, arith.sub(cols, 1))
        top = at(i, y0, x0) * (1 - fx) + at(i, y0, x1) * fx
        bottom = at(i, y1, x0) * (1 - fx) + at(i, y1, x1) * fx
        return top * (1 - fy) + bottom * fy
    return te.compute(shape, bilinear, name="resize", tag=tag.INJECTIVE)
