"""Transposed convolution (TVM's ``topi.nn.conv2d_transpose_nchw``): the gradient of a strided
convolution with respect to its input, computed as a convolution of the input dilated by the
strides and padded by ``kernel - 1 - padding``, with the kernel flipped and its channel axes
swapped. The output is ``(in - 1) * stride - pad_before - pad_after + kernel + output_padding``."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi.nn.pad import dilate, pad
from topi.nn.window import check_tensors
from topi.utils import const_value, get_const_int, get_pad_tuple, pair


def conv2d_transpose_nchw(Input: Tensor, Filter: Tensor, strides: Any, padding: Any,  # noqa: N803
                          out_dtype: str, output_padding: Any = (0, 0)) -> Tensor:
    """Input NCHW, Filter ``(in_channels, out_channels, rows, cols)`` (IOHW, as TVM's).

    :raises ValueError: for an output padding not smaller than its stride, or a padding larger
        than the kernel allows.
    """
    op = "conv2d_transpose_nchw"
    check_tensors(op, Input=Input, Filter=Filter)
    sh, sw = pair(op, "stride", strides)
    oh, ow = pair(op, "output_padding", output_padding)
    if oh >= sh or ow >= sw:
        raise ValueError(f"topi.nn.{op}: output_padding {output_padding!r} must be smaller than the strides "
                         f"{strides!r}")
    _, channels, _, _ = Input.shape
    in_channels, out_channels, kh, kw = Filter.shape
    if const_value(channels) is not None and const_value(in_channels) not in (None, const_value(channels)):
        raise ValueError(f"topi.nn.{op}: the filter takes {in_channels} input channels, the input has {channels} "
                         f"(Filter must be (in_channels, out_channels, rows, cols))")
    kh_, kw_ = get_const_int(kh), get_const_int(kw)
    top, left, bottom, right = get_pad_tuple(padding, (kh_, kw_), op)
    if max(top, bottom) > kh_ - 1 or max(left, right) > kw_ - 1:
        raise ValueError(f"topi.nn.{op}: padding {padding!r} is larger than the kernel ({kh_}x{kw_}) minus one")
    dilated = dilate(Input, [1, 1, sh, sw], name="data_dilate")
    padded = pad(dilated, [0, 0, kh_ - 1 - top, kw_ - 1 - left], [0, 0, kh_ - 1 - bottom + oh, kw_ - 1 - right + ow],
                 name="data_pad")
    flipped = te.compute((out_channels, in_channels, kh, kw),
                         lambda o, i, h, w: Filter[i, o, kh_ - 1 - h, kw_ - 1 - w], name="kernel_transform")
    dc = te.reduce_axis((0, channels), name="dc")
    dh, dw = te.reduce_axis((0, kh), name="dh"), te.reduce_axis((0, kw), name="dw")
    _, _, rows, cols = padded.shape
    return te.compute(
        (Input.shape[0], out_channels, rows - kh_ + 1, cols - kw_ + 1),
        lambda b, c, h, w: te.sum(padded[b, dc, h + dh, w + dw].astype(out_dtype)
                                  * flipped[c, dc, dh, dw].astype(out_dtype), axis=[dc, dh, dw]),
        name="conv2d_transpose_nchw", tag="conv2d_transpose_nchw")
