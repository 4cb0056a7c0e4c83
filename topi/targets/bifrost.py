"""``topi.bifrost``: the generic dense and depthwise convolution schedules under Bifrost's names."""

from topi.generic import schedule_dense, schedule_depthwise_conv2d_nchw
from topi.nn import dense

__all__ = ["dense", "schedule_dense", "schedule_depthwise_conv2d_nchw"]
