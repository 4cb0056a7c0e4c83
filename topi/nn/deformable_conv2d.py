"""Deformable convolution (TVM's ``topi.nn.deformable_conv2d_nchw`` and ``_nhwc``): each kernel
tap reads the input at its position moved by a learned (dy, dx) offset per output position and
deformable group, bilinearly (``data_deform``), then one reduction as a convolution."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi.nn.bilinear import bilinear_sample
from topi.transform.shape import tensor
from topi.utils import get_const_int, get_pad_tuple, pair


def _deformable(op: str, data: Tensor, offset: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any,
                deformable_groups: int, groups: int, out_dtype: str | None, nhwc: bool) -> Tensor:
    data, offset, kernel = (tensor(f"nn.{op}", t) for t in (data, offset, kernel))
    if groups != 1:
        raise ValueError(f"topi.nn.{op}: groups must be 1 (as TVM's), got {groups!r}")
    sh, sw = pair(op, "stride", strides)
    dh, dw = pair(op, "dilation", dilation)
    if nhwc:
        batch, height, width, channels = (get_const_int(d) for d in data.shape)
        kh, kw, _, filters = (get_const_int(d) for d in kernel.shape)
        _, out_h, out_w, _ = (get_const_int(d) for d in offset.shape)
    else:
        batch, channels, height, width = (get_const_int(d) for d in data.shape)
        filters, _, kh, kw = (get_const_int(d) for d in kernel.shape)
        _, _, out_h, out_w = (get_const_int(d) for d in offset.shape)
    if isinstance(deformable_groups, bool) or not isinstance(deformable_groups, int) or deformable_groups < 1 or \
            channels % deformable_groups:
        raise ValueError(f"topi.nn.{op}: deformable_groups must be a positive int dividing the {channels} channels, "
                         f"got {deformable_groups!r}")
    per_group = channels // deformable_groups
    top, left, _, _ = get_pad_tuple(padding, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), op)
    zero = arith.const(0.0, data.dtype)

    def sample(n: Any, c: Any, ky: Any, kx: Any, y: Any, x: Any) -> Any:
        first = c // per_group * (kh * kw * 2) + (ky * kw + kx) * 2
        dy = offset[n, y, x, first] if nhwc else offset[n, first, y, x]
        dx = offset[n, y, x, first + 1] if nhwc else offset[n, first + 1, y, x]
        yy = (y * sh - top + ky * dh).astype(data.dtype) + dy
        xx = (x * sw - left + kx * dw).astype(data.dtype) + dx
        outside = te.any(yy < 0, xx < 0, yy >= height, xx >= width)
        read = (lambda r, q: data[n, r, q, c]) if nhwc else (lambda r, q: data[n, c, r, q])
        return te.if_then_else(outside, zero, bilinear_sample(read, yy, xx, height - 1, width - 1))

    out_dtype = out_dtype or data.dtype
    rc = te.reduce_axis((0, channels), name="rc")
    ry, rx = te.reduce_axis((0, kh), name="ry"), te.reduce_axis((0, kw), name="rx")
    if nhwc:
        deform = te.compute((batch, kh, kw, channels, out_h, out_w),
                            lambda n, ky, kx, c, y, x: sample(n, c, ky, kx, y, x), tag="data_deform")
        return te.compute((batch, out_h, out_w, filters), lambda n, y, x, f: te.sum(
            deform[n, ry, rx, rc, y, x].astype(out_dtype) * kernel[ry, rx, rc, f].astype(out_dtype),
            axis=[ry, rx, rc]), tag=op)
    deform = te.compute((batch, channels, kh, kw, out_h, out_w), sample, tag="data_deform")
    return te.compute((batch, filters, out_h, out_w), lambda n, f, y, x: te.sum(
        deform[n, rc, ry, rx, y, x].astype(out_dtype) * kernel[f, rc, ry, rx].astype(out_dtype),
        axis=[rc, ry, rx]), tag=op)


def deformable_conv2d_nchw(data: Tensor, offset: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any,
                           deformable_groups: int, groups: int, out_dtype: str | None) -> Tensor:
    """Data NCHW, offset ``(n, groups * kh * kw * 2, oh, ow)`` (dy then dx per tap), kernel OIHW."""
    return _deformable("deformable_conv2d_nchw", data, offset, kernel, strides, padding, dilation, deformable_groups,
                       groups, out_dtype, False)


def deformable_conv2d_nhwc(data: Tensor, offset: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any,
                           deformable_groups: int, groups: int, out_dtype: str | None) -> Tensor:
    """Data NHWC, offset ``(n, oh, ow, groups * kh * kw * 2)``, kernel HWIO."""
    return _deformable("deformable_conv2d_nhwc", data, offset, kernel, strides, padding, dilation, deformable_groups,
                       groups, out_dtype, True)
