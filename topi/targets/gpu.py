"""``topi.gpu``: dense and NHWC convolution computes and their CUDA schedules."""

from topi.cuda import schedule_conv2d_nhwc, schedule_dense
from topi.nn import conv2d_nhwc, dense

dense_small_batch = dense_large_batch = dense
schedule_dense_small_batch = schedule_dense_large_batch = schedule_dense

__all__ = ["conv2d_nhwc", "dense_large_batch", "dense_small_batch", "schedule_conv2d_nhwc",
           "schedule_dense_large_batch", "schedule_dense_small_batch"]
