"""``topi.intel_graphics``: the generic depthwise convolution and its schedule."""

from topi.generic import schedule_depthwise_conv2d_nchw
from topi.nn import depthwise_conv2d_nchw

__all__ = ["depthwise_conv2d_nchw", "schedule_depthwise_conv2d_nchw"]
