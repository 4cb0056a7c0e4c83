"""TVM's neural-network operators (``topi.nn``): convolutions, matrix products, pooling,
softmax, activations, normalizations, padding, dilation, upsampling and flatten."""

from topi.nn.bnn import binarize_pack, binary_dense
from topi.nn.conv import conv
from topi.nn.conv1d import conv1d, conv1d_ncw, conv1d_nwc, group_conv1d_ncw, group_conv1d_nwc
from topi.nn.conv2d import conv2d, conv2d_hwcn, conv2d_nchw, conv2d_nhwc, group_conv2d_nchw, group_conv2d_nhwc
from topi.nn.conv2d_nchwc import conv2d_NCHWc
from topi.nn.conv3d import conv3d_ncdhw, conv3d_ndhwc
from topi.nn.conv_transpose import (
    conv1d_transpose_ncw,
    conv2d_transpose_nchw,
    conv3d_transpose_ncdhw,
    group_conv2d_transpose_nchw,
)
from topi.nn.correlation import correlation_nchw
from topi.nn.deformable_conv2d import deformable_conv2d_nchw, deformable_conv2d_nhwc
from topi.nn.dense import batch_matmul, dense, matmul
from topi.nn.depthwise_conv2d import depthwise_conv2d_nchw, depthwise_conv2d_nhwc
from topi.nn.depthwise_grad import depthwise_conv2d_backward_input_nhwc, depthwise_conv2d_backward_weight_nhwc
from topi.nn.elemwise import leaky_relu, prelu, relu
from topi.nn.fifo_buffer import fifo_buffer
from topi.nn.flatten import flatten
from topi.nn.loss import nll_loss
from topi.nn.lstm import lstm
from topi.nn.mapping import scale_shift_nchw, scale_shift_nchwc, scale_shift_nhwc
from topi.nn.norm import batch_norm, group_norm, instance_norm, layer_norm, lrn
from topi.nn.pad import dilate, pad
from topi.nn.pool_grad import pool_grad
from topi.nn.pooling import adaptive_pool, adaptive_pool1d, adaptive_pool3d, global_pool, pool1d, pool2d, pool3d
from topi.nn.softmax import fast_softmax, log_softmax, softmax
from topi.nn.space_blocks import batch_to_space_nd, depth_to_space, space_to_batch_nd, space_to_depth
from topi.nn.sparse import sparse_add, sparse_conv2d, sparse_dense, sparse_transpose
from topi.nn.upsampling import upsampling, upsampling3d
from topi.nn.winograd import conv2d_winograd_nchw, conv2d_winograd_nhwc, winograd_transform_matrices
from topi.utils import get_pad_tuple

__all__ = ["adaptive_pool", "adaptive_pool1d", "adaptive_pool3d", "batch_matmul", "batch_norm", "batch_to_space_nd",
           "binarize_pack", "binary_dense", "conv", "conv1d", "conv1d_ncw", "conv1d_nwc", "conv1d_transpose_ncw",
           "conv2d", "conv2d_NCHWc", "conv2d_hwcn", "conv2d_nchw", "conv2d_nhwc", "conv2d_transpose_nchw",
           "conv2d_winograd_nchw", "conv2d_winograd_nhwc", "conv3d_ncdhw", "conv3d_ndhwc", "conv3d_transpose_ncdhw",
           "correlation_nchw", "deformable_conv2d_nchw", "deformable_conv2d_nhwc", "dense", "depth_to_space",
           "depthwise_conv2d_backward_input_nhwc", "depthwise_conv2d_backward_weight_nhwc", "depthwise_conv2d_nchw",
           "depthwise_conv2d_nhwc", "dilate", "fast_softmax", "fifo_buffer", "flatten", "get_pad_tuple",
           "global_pool", "group_conv1d_ncw", "group_conv1d_nwc", "group_conv2d_nchw", "group_conv2d_nhwc",
           "group_conv2d_transpose_nchw", "group_norm", "instance_norm", "layer_norm", "leaky_relu", "log_softmax",
           "lrn", "lstm", "matmul", "nll_loss", "pad", "pool1d", "pool2d", "pool3d", "pool_grad", "prelu", "relu",
           "scale_shift_nchw", "scale_shift_nchwc", "scale_shift_nhwc", "softmax", "space_to_batch_nd",
           "space_to_depth", "sparse_add", "sparse_conv2d", "sparse_dense", "sparse_transpose", "upsampling",
           "upsampling3d", "winograd_transform_matrices"]
