"""``topi.mali``: the generic computes and schedules under Mali's names."""

from topi.generic import (
    schedule_conv2d_nchw,
    schedule_conv2d_nhwc,
    schedule_dense,
    schedule_depthwise_conv2d_nchw,
    schedule_depthwise_conv2d_nhwc,
)
from topi.nn import conv2d_nhwc, dense, depthwise_conv2d_nchw, depthwise_conv2d_nhwc
from topi.nn.winograd import conv2d_nchw_winograd

conv2d_nhwc_spatial_pack = conv2d_nhwc
schedule_conv2d_nhwc_spatial_pack = schedule_conv2d_nhwc
schedule_conv2d_nchw_winograd = schedule_conv2d_nchw

__all__ = ["conv2d_nchw_winograd", "conv2d_nhwc_spatial_pack", "dense", "depthwise_conv2d_nchw",
           "depthwise_conv2d_nhwc", "schedule_conv2d_nchw_winograd", "schedule_conv2d_nhwc_spatial_pack",
           "schedule_dense", "schedule_depthwise_conv2d_nchw", "schedule_depthwise_conv2d_nhwc"]
