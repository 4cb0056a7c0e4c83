"""``topi.arm_cpu``: the generic computes and schedules under Arm's names."""

from __future__ import annotations

from typing import Any

from schedule import Tensor
from topi.generic import (
    schedule_conv2d_nchw,
    schedule_conv2d_nhwc,
    schedule_conv2d_transpose_nchw,
    schedule_dense,
    schedule_depthwise_conv2d_nchw,
    schedule_depthwise_conv2d_nhwc,
    schedule_injective,
)
from topi.nn import conv2d_nchw, conv2d_nhwc, conv2d_transpose_nchw, dense, depthwise_conv2d_nchw, depthwise_conv2d_nhwc
from topi.nn.winograd import conv2d_nchw_winograd


def compute_depthwise_conv2d_nhwc(data: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any,
                                  out_dtype: str | None = None) -> Tensor:
    """The NHWC depthwise convolution, its kernel ``(rows, cols, channels, multiplier)``."""
    return depthwise_conv2d_nhwc(data, kernel, strides, padding, dilation, "HWOI", out_dtype)


conv2d_nchw_spatial_pack = conv2d_nchw
conv2d_nhwc_spatial_pack = conv2d_nhwc
depthwise_conv2d_nchw_spatial_pack = depthwise_conv2d_nchw
schedule_conv2d_nchw_spatial_pack = schedule_conv2d_nchw
schedule_conv2d_nhwc_spatial_pack = schedule_conv2d_nhwc
schedule_depthwise_conv2d_nchw_spatial_pack = schedule_depthwise_conv2d_nchw
schedule_concatenate = schedule_injective
schedule_conv2d_nchw_winograd = schedule_conv2d_nchw

__all__ = ["compute_depthwise_conv2d_nhwc", "conv2d_nchw_spatial_pack", "conv2d_nchw_winograd",
           "conv2d_nhwc_spatial_pack", "conv2d_transpose_nchw", "dense", "depthwise_conv2d_nchw",
           "depthwise_conv2d_nchw_spatial_pack", "schedule_concatenate", "schedule_conv2d_nchw_spatial_pack",
           "schedule_conv2d_nchw_winograd", "schedule_conv2d_nhwc_spatial_pack", "schedule_conv2d_transpose_nchw",
           "schedule_dense", "schedule_depthwise_conv2d_nchw", "schedule_depthwise_conv2d_nchw_spatial_pack",
           "schedule_depthwise_conv2d_nhwc"]
