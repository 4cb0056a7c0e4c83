"""``topi.arm_cpu``: the generic computes and schedules under Arm's names."""

from topi.generic import schedule_conv2d_nchw, schedule_dense, schedule_depthwise_conv2d_nchw
from topi.nn import conv2d_nchw, dense, depthwise_conv2d_nchw

conv2d_nchw_spatial_pack = conv2d_nchw
schedule_conv2d_nchw_spatial_pack = schedule_conv2d_nchw

__all__ = ["conv2d_nchw_spatial_pack", "dense", "depthwise_conv2d_nchw", "schedule_conv2d_nchw_spatial_pack",
           "schedule_dense", "schedule_depthwise_conv2d_nchw"]
