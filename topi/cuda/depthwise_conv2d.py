"""TVM's ``topi.cuda.depthwise_conv2d`` module: the CUDA schedules of the depthwise convolution
and of its NHWC gradients (every stage over blocks and threads)."""

from topi.cuda.fallbacks import schedule_depthwise_conv2d_nhwc
from topi.cuda.injective import fallback
from topi.cuda.nn import schedule_depthwise_conv2d_nchw

schedule_depthwise_conv2d_backward_input_nhwc = fallback("schedule_depthwise_conv2d_backward_input_nhwc")
schedule_depthwise_conv2d_backward_weight_nhwc = fallback("schedule_depthwise_conv2d_backward_weight_nhwc")

__all__ = ["schedule_depthwise_conv2d_backward_input_nhwc", "schedule_depthwise_conv2d_backward_weight_nhwc",
           "schedule_depthwise_conv2d_nchw", "schedule_depthwise_conv2d_nhwc"]
