"""The gradients of the NHWC depthwise convolution (TVM's
``topi.nn.depthwise_conv2d_backward_input_nhwc`` and ``..._backward_weight_nhwc``): the input's
gradient as a convolution of the output's gradient, dilated by the strides and padded, with the
kernel flipped; the kernel's as the correlation of the padded input with the output's
gradient over the batch and the output positions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from topi.nn.pad import dilate, pad
from topi.transform.shape import tensor
from topi.utils import get_const_int, get_pad_tuple, pair


def _sizes(op: str, shape: Any, what: str) -> list[int]:
    if not isinstance(shape, Sequence) or len(shape) != 4:
        raise ValueError(f"topi.nn.{op}: {what} is the 4 extents of an NHWC tensor, got {shape!r}")
    return [get_const_int(d) for d in shape]


def depthwise_conv2d_backward_input_nhwc(Filter: Tensor, Out_grad: Tensor, oshape: Any, ishape: Any,  # noqa: N803
                                         stride: Any, padding: Any) -> Tensor:
    """The gradient of the input ``(batch, h, w, c)`` = *ishape* of the forward convolution by
    *Filter* ``(kh, kw, c, multiplier)`` whose output gradient is *Out_grad* (*oshape*)."""
    op = "depthwise_conv2d_backward_input_nhwc"
    flt, grad = tensor(f"nn.{op}", Filter), tensor(f"nn.{op}", Out_grad)
    batch, in_h, in_w, in_c = _sizes(op, ishape, "ishape")
    _sizes(op, oshape, "oshape")
    kh, kw, _, multiplier = (get_const_int(d) for d in flt.shape)
    sh, sw = pair(op, "stride", stride)
    top, left, bottom, right = get_pad_tuple(padding, (kh, kw), op)
    dilated = dilate(grad, [1, sh, sw, 1], name="dilated_out_grad")
    padded = pad(dilated, [0, kh - 1 - top, kw - 1 - left, 0],
                 [0, kh - 1 - bottom + sh - 1, kw - 1 - right + sw - 1, 0], name="padded_out_grad")
    dh, dw = te.reduce_axis((0, kh), name="dh"), te.reduce_axis((0, kw), name="dw")
    dc = te.reduce_axis((0, multiplier), name="dc")
    return te.compute((batch, in_h, in_w, in_c),
                      lambda b, h, w, c: te.sum(padded[b, h + dh, w + dw, c * multiplier + dc]
                                                * flt[kh - 1 - dh, kw - 1 - dw, c, dc], axis=[dh, dw, dc]),
                      tag=op)


def depthwise_conv2d_backward_weight_nhwc(Input: Tensor, Out_grad: Tensor, oshape: Any, fshape: Any,  # noqa: N803
                                          stride: Any, padding: Any) -> Tensor:
    """The gradient of the kernel ``(kh, kw, c, multiplier)`` = *fshape* of the forward
    convolution of *Input* whose output gradient is *Out_grad* (*oshape*)."""
    op = "depthwise_conv2d_backward_weight_nhwc"
    data, grad = tensor(f"nn.{op}", Input), tensor(f"nn.{op}", Out_grad)
    batch, out_h, out_w, _ = _sizes(op, oshape, "oshape")
    kh, kw, in_c, multiplier = _sizes(op, fshape, "fshape")
    sh, sw = pair(op, "stride", stride)
    top, left, bottom, right = get_pad_tuple(padding, (kh, kw), op)
    padded = pad(data, [0, top, left, 0], [0, bottom, right, 0], name="padded_in")
    dh, dw = te.reduce_axis((0, out_h), name="dh"), te.reduce_axis((0, out_w), name="dw")
    db = te.reduce_axis((0, batch), name="db")
    return te.compute((kh, kw, in_c, multiplier),
                      lambda fh, fw, c, m: te.sum(grad[db, dh, dw, c * multiplier + m]
                                                  * padded[db, fh + dh * sh, fw + dw * sw, c], axis=[db, dh, dw]),
                      tag=op)
