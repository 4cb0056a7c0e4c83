"""2-d convolutions (TVM's ``topi.nn.conv2d_nchw``, ``conv2d_nhwc``, ``group_conv2d_nchw``,
``group_conv2d_nhwc``, ``conv2d``): the input padded by a ``pad_temp`` stage, then one reduction over input channels
and kernel rows and columns, with TVM's names, tags and output shape
``(in - dilated_kernel + pad_before + pad_after) // stride + 1``."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi.nn.conv import conv
from topi.nn.pad import pad
from topi.nn.window import Window, check_tensors
from topi.nn.workload import conv2d_workload
from topi.utils import const_value


def conv2d_nchw(Input: Tensor, Filter: Tensor, stride: Any, padding: Any, dilation: Any,  # noqa: N803
                out_dtype: str | None = None) -> Tensor:
    """``conv2d_nchw[n, f, y, x] = sum over c, ry, rx of pad_temp[n, c, y*sh + ry*dh, x*sw + rx*dw]
    * Filter[f, c, ry, rx]``, Input NCHW, Filter OIHW (output channels, input channels, rows,
    columns)."""
    check_tensors("conv2d_nchw", Input=Input, Filter=Filter)
    return _conv_nchw("conv2d_nchw", Input, Filter, stride, padding, dilation, 1, out_dtype)


def group_conv2d_nchw(Input: Tensor, Filter: Tensor, stride: Any, padding: Any, dilation: Any,  # noqa: N803
                      groups: int, out_dtype: str | None = None) -> Tensor:
    """A convolution whose channels form *groups* independent groups: Filter is
    ``(out_channels, in_channels // groups, rows, cols)`` and output channel f reads the input
    channels of group ``f // (out_channels // groups)``."""
    check_tensors("group_conv2d_nchw", Input=Input, Filter=Filter)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"topi.nn.group_conv2d_nchw: groups must be a positive int, got {groups!r}")
    return _conv_nchw("group_conv2d_nchw", Input, Filter, stride, padding, dilation, groups, out_dtype)


def _conv_nchw(op: str, data: Tensor, kernel: Tensor, stride: Any, padding: Any, dilation: Any, groups: int,
               out_dtype: str | None) -> Tensor:
    """The NCHW convolution by an OIHW kernel: :func:`topi.nn.conv.conv`, as TVM's conv2d_nchw is."""
    return conv(data, kernel, stride, padding, dilation, groups, "NCHW", "OIHW", out_dtype)


def conv2d_nhwc(Input: Tensor, Filter: Tensor, stride: Any, padding: Any, dilation: Any,  # noqa: N803
                out_dtype: str = "float32", kernel_layout: str = "HWIO") -> Tensor:
    """The convolution with Input NHWC and Filter HWIO (rows, columns, input channels, output
    channels; or OHWI with *kernel_layout*): ``conv2d_nhwc[n, y, x, f] = sum pad_temp[n, y*sh +
    ry*dh, x*sw + rx*dw, c] * Filter[ry, rx, c, f]``.

    :raises ValueError: for another kernel layout.
    """
    check_tensors("conv2d_nhwc", Input=Input, Filter=Filter)
    if kernel_layout not in ("HWIO", "OHWI"):
        raise ValueError(f"topi.nn.conv2d_nhwc: kernel_layout is 'HWIO' or 'OHWI', not {kernel_layout!r}")
    ohwi = kernel_layout == "OHWI"
    _, rows, cols, channels = Input.shape
    if ohwi:
        filters, kh, kw, per_filter = Filter.shape
    else:
        kh, kw, per_filter, filters = Filter.shape
    if const_value(channels) is not None and const_value(per_filter) not in (None, const_value(channels)):
        raise ValueError(f"topi.nn.conv2d_nhwc: the filter reads {per_filter} channels, the input has {channels}")
    w = Window("conv2d_nhwc", rows, cols, (kh, kw), stride, padding, dilation)
    padded = pad(Input, [0, w.top, w.left, 0], [0, w.bottom, w.right, 0], name="pad_temp")
    ry, rx = te.reduce_axis((0, kh), name="ry"), te.reduce_axis((0, kw), name="rx")
    rc = te.reduce_axis((0, channels), name="rc")

    def element(nn: Any, yy: Any, xx: Any, ff: Any) -> Any:
        weight = Filter[ff, ry, rx, rc] if ohwi else Filter[ry, rx, rc, ff]
        return te.sum(padded[nn, w.row(yy, ry), w.col(xx, rx), rc].astype(out_dtype)
                      * weight.astype(out_dtype), axis=[ry, rx, rc])
    return te.compute((Input.shape[0], w.out_h, w.out_w, filters), element, name="conv2d_nhwc", tag="conv2d_nhwc")


def group_conv2d_nhwc(Input: Tensor, Filter: Tensor, stride: Any, padding: Any, dilation: Any,  # noqa: N803
                      groups: int, out_dtype: str | None = None) -> Tensor:
    """The NHWC convolution of *groups* channel groups: Filter HWIO with ``in_channels //
    groups`` input channels (:func:`topi.nn.conv.conv`, named ``group_conv2d_nhwc``)."""
    return conv(Input, Filter, stride, padding, dilation, groups, "NHWC", "HWIO", out_dtype)


def conv2d_hwcn(Input: Tensor, Filter: Tensor, stride: Any, padding: Any, dilation: Any,  # noqa: N803
                out_dtype: str | None = None) -> Tensor:
    """The convolution with Input HWCN (rows, columns, channels, batch) and Filter HWIO:
    ``Conv2dOutput[y, x, f, n] = sum PaddedInput[y*sh + ry*dh, x*sw + rx*dw, c, n]
    * Filter[ry, rx, c, f]``."""
    check_tensors("conv2d_hwcn", Input=Input, Filter=Filter)
    out_dtype = out_dtype or Input.dtype
    rows, cols, channels, _ = Input.shape
    kh, kw, per_filter, filters = Filter.shape
    if const_value(channels) is not None and const_value(per_filter) not in (None, const_value(channels)):
        raise ValueError(f"topi.nn.conv2d_hwcn: the filter reads {per_filter} channels, the input has {channels}")
    w = Window("conv2d_hwcn", rows, cols, (kh, kw), stride, padding, dilation)
    padded = pad(Input, [w.top, w.left, 0, 0], [w.bottom, w.right, 0, 0], name="PaddedInput")
    rc = te.reduce_axis((0, channels), name="rc")
    ry, rx = te.reduce_axis((0, kh), name="ry"), te.reduce_axis((0, kw), name="rx")

    def element(yy: Any, xx: Any, ff: Any, nn: Any) -> Any:
        return te.sum(padded[w.row(yy, ry), w.col(xx, rx), rc, nn].astype(out_dtype)
                      * Filter[ry, rx, rc, ff].astype(out_dtype), axis=[ry, rx, rc])
    return te.compute((w.out_h, w.out_w, filters, Input.shape[3]), element, name="Conv2dOutput", tag="conv2d_hwcn")


def conv2d(input: Tensor, filter: Tensor, strides: Any, padding: Any, dilation: Any,  # noqa: A002 - TVM's names
           data_layout: str = "NCHW", kernel_layout: str = "", out_dtype: str | None = None) -> Tensor:
    """:func:`conv2d_nchw` (kernel OIHW) or :func:`conv2d_nhwc` (kernel HWIO or OHWI) by *data_layout*.

    :raises ValueError: for another layout.
    """
    if data_layout == "NCHW" and kernel_layout in ("", "OIHW"):
        return conv2d_nchw(input, filter, strides, padding, dilation, out_dtype)
    if data_layout == "NHWC" and kernel_layout in ("", "HWIO", "OHWI"):
        return conv2d_nhwc(input, filter, strides, padding, dilation, out_dtype or input.dtype, kernel_layout or "HWIO")
    raise ValueError(f"topi.nn.conv2d: layouts {data_layout!r} with kernel {kernel_layout or 'default'!r} are not "
                     f"supported; use NCHW with OIHW, or NHWC with HWIO or OHWI")


def _get_workload(data: Tensor, kernel: Tensor, stride: Any, padding: Any, dilation: Any, out_dtype: str,
                  data_layout: str = "NCHW") -> Any:
    """TVM's workload tuple of this conv2d (:func:`topi.nn.workload.conv2d_workload`)."""
    return conv2d_workload(data, kernel, stride, padding, dilation, out_dtype, data_layout)
