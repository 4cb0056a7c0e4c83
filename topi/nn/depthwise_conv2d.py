"""Depthwise convolution (TVM's ``topi.nn.depthwise_conv2d_nchw``): each input channel convolved
with its own *multiplier* filters, giving ``channels * multiplier`` output channels."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir.dtype import check_dtype
from topi.nn.pad import pad
from topi.nn.window import Window, check_tensors
from topi.nn.workload import depthwise_workload
from topi.utils import const_value


def _same_channels(op: str, channels: Any, filter_channels: Any, layout: str) -> None:
    if const_value(channels) is not None and const_value(filter_channels) not in (None, const_value(channels)):
        raise ValueError(f"topi.nn.{op}: the filter has {filter_channels} channels, the input {channels} (Filter "
                         f"must be {layout})")


def depthwise_conv2d_nchw(Input: Tensor, Filter: Tensor, stride: Any, padding: Any, dilation: Any,  # noqa: N803
                          out_dtype: str | None = None) -> Tensor:
    """Input NCHW, Filter ``(channels, multiplier, rows, cols)``; output channel c reads input
    channel ``c // multiplier`` with filter ``(c // multiplier, c % multiplier)``."""
    check_tensors("depthwise_conv2d_nchw", Input=Input, Filter=Filter)
    out_dtype = out_dtype or Input.dtype
    _, channels, rows, cols = Input.shape
    filter_channels, multiplier, kh, kw = Filter.shape
    _same_channels("depthwise_conv2d_nchw", channels, filter_channels, "(channels, multiplier, rows, cols)")
    w = Window("depthwise_conv2d_nchw", rows, cols, (kh, kw), stride, padding, dilation)
    padded = pad(Input, [0, 0, w.top, w.left], [0, 0, w.bottom, w.right], name="PaddedInput")
    di, dj = te.reduce_axis((0, kh), name="di"), te.reduce_axis((0, kw), name="dj")

    def element(b: Any, c: Any, i: Any, j: Any) -> Any:
        source = te.floordiv(c, multiplier)
        return te.sum(padded[b, source, w.row(i, di), w.col(j, dj)].astype(out_dtype)
                      * Filter[source, te.floormod(c, multiplier), di, dj].astype(out_dtype), axis=[di, dj])
    return te.compute((Input.shape[0], channels * multiplier, w.out_h, w.out_w), element, name="DepthwiseConv2d",
                      tag="depthwise_conv2d_nchw")


def depthwise_conv2d_nhwc(Input: Tensor, Filter: Tensor, stride: Any, padding: Any, dilation: Any,  # noqa: N803
                          kernel_layout: str = "HWOI", out_dtype: str | None = None) -> Tensor:
    """Input NHWC, Filter ``(rows, cols, channels, multiplier)`` (TVM's ``HWOI``) or ``(rows,
    cols, multiplier, channels)`` (``HWIO``); output channel c reads input channel
    ``c // multiplier``. A data type in *kernel_layout*'s place (TVM's own callers pass the
    output type there) is taken as *out_dtype* with the HWOI layout.

    :raises ValueError: for another kernel layout, or filter channels that are not the input's.
    """
    check_tensors("depthwise_conv2d_nhwc", Input=Input, Filter=Filter)
    if kernel_layout not in ("HWOI", "HWIO"):
        try:
            out_dtype, kernel_layout = out_dtype or check_dtype(kernel_layout), "HWOI"
        except (TypeError, ValueError):
            raise ValueError(f"topi.nn.depthwise_conv2d_nhwc: kernel_layout is 'HWOI' or 'HWIO', not "
                             f"{kernel_layout!r}") from None
    out_dtype = out_dtype or Input.dtype
    _, rows, cols, channels = Input.shape
    if kernel_layout == "HWOI":
        kh, kw, filter_channels, multiplier = Filter.shape
    else:
        kh, kw, multiplier, filter_channels = Filter.shape
    order = "channels, multiplier" if kernel_layout == "HWOI" else "multiplier, channels"
    _same_channels("depthwise_conv2d_nhwc", channels, filter_channels, f"(rows, cols, {order})")
    w = Window("depthwise_conv2d_nhwc", rows, cols, (kh, kw), stride, padding, dilation)
    padded = pad(Input, [0, w.top, w.left, 0], [0, w.bottom, w.right, 0], name="PaddedInput")
    di, dj = te.reduce_axis((0, kh), name="di"), te.reduce_axis((0, kw), name="dj")

    def taps(channel: Any, k: Any) -> tuple[Any, Any]:
        return (channel, k) if kernel_layout == "HWOI" else (k, channel)

    def element(b: Any, i: Any, j: Any, c: Any) -> Any:
        source = te.floordiv(c, multiplier)
        return te.sum(padded[b, w.row(i, di), w.col(j, dj), source].astype(out_dtype)
                      * Filter[(di, dj, *taps(source, te.floormod(c, multiplier)))].astype(out_dtype),
                      axis=[di, dj])
    return te.compute((Input.shape[0], w.out_h, w.out_w, channels * multiplier), element, name="DepthwiseConv2d",
                      tag="depthwise_conv2d_nhwc")


def _get_workload(data: Tensor, kernel: Tensor, stride: Any, padding: Any, dilation: Any, out_dtype: str,
                  data_layout: str = "NCHW") -> Any:
    """TVM's workload tuple of this depthwise conv2d (:func:`topi.nn.workload.depthwise_workload`)."""
    return depthwise_workload(data, kernel, stride, padding, dilation, out_dtype, data_layout)
