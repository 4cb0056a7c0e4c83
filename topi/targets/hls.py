"""``topi.hls``: the generic schedules."""

from topi.generic import (
    schedule_adaptive_pool,
    schedule_broadcast,
    schedule_conv2d_nchw,
    schedule_conv2d_nhwc,
    schedule_conv2d_transpose_nchw,
    schedule_dense,
    schedule_depthwise_conv2d_nchw,
    schedule_elemwise,
    schedule_injective,
    schedule_pool,
    schedule_reduce,
    schedule_softmax,
)

__all__ = ["schedule_adaptive_pool", "schedule_broadcast", "schedule_conv2d_nchw", "schedule_conv2d_nhwc",
           "schedule_conv2d_transpose_nchw", "schedule_dense", "schedule_depthwise_conv2d_nchw", "schedule_elemwise",
           "schedule_injective", "schedule_pool", "schedule_reduce", "schedule_softmax"]
