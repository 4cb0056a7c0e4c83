"""NumPy references for TVM's operators (``topi.testing``), written from the operators'
definitions with NumPy alone, to check the computes against."""

from topi.testing.common import (
    compare_numpy_tvm,
    dispatch,
    get_broadcast_schedule,
    get_conv2d_nchw_implement,
    get_elemwise_schedule,
    get_injective_schedule,
    get_reduce_schedule,
)
from topi.testing.conv import (
    conv2d_hwcn_python,
    conv2d_nchw_python,
    conv2d_nhwc_python,
    conv2d_transpose_nchw_python,
    depthwise_conv2d_python_nchw,
    depthwise_conv2d_python_nchwc,
    depthwise_conv2d_python_nhwc,
    dilate_python,
)
from topi.testing.conv_nd import (
    conv1d_ncw_python,
    conv1d_transpose_ncw_python,
    conv3d_ncdhw_python,
    conv3d_ndhwc_python,
    conv3d_transpose_ncdhw_python,
    conv_ncx_python,
    conv_transpose_ncx_python,
    group_conv1d_ncw_python,
)
from topi.testing.deformable import (
    correlation_nchw_python,
    deformable_conv2d_nchw_python,
    deformable_conv2d_nhwc_python,
)
from topi.testing.image import affine_grid_python, crop_and_resize_python, grid_sample_python
from topi.testing.lstm import lstm_python
from topi.testing.nn import (
    batch_matmul,
    batch_norm,
    dense,
    group_norm_python,
    instance_norm_python,
    layer_norm_python,
    log_softmax_python,
    lrn_python,
    nll_loss,
    softmax_python,
    strided_slice_python,
    upsampling_python,
)
from topi.testing.pool import adaptive_pool, pool_grad_nchw, poolnd_python
from topi.testing.rcnn import roi_align_nchw_python, roi_pool_nchw_python
from topi.testing.resize import resize1d_python, resize2d_python, resize3d_python
from topi.testing.space import (
    batch_to_space_nd_python,
    depth_to_space_python,
    reorg_python,
    space_to_batch_nd_python,
    space_to_depth_python,
)
from topi.testing.transform import (
    gather_nd_python,
    gather_python,
    matrix_set_diag,
    one_hot,
    searchsorted_ref,
    sequence_mask,
    strided_set_python,
)

__all__ = ["adaptive_pool", "affine_grid_python", "batch_matmul", "batch_norm", "batch_to_space_nd_python",
           "compare_numpy_tvm", "conv1d_ncw_python", "conv1d_transpose_ncw_python", "conv2d_hwcn_python",
           "conv2d_nchw_python", "conv2d_nhwc_python", "conv2d_transpose_nchw_python", "conv3d_ncdhw_python",
           "conv3d_ndhwc_python", "conv3d_transpose_ncdhw_python", "conv_ncx_python", "conv_transpose_ncx_python",
           "correlation_nchw_python", "crop_and_resize_python", "deformable_conv2d_nchw_python",
           "deformable_conv2d_nhwc_python", "dense", "depth_to_space_python", "depthwise_conv2d_python_nchw",
           "depthwise_conv2d_python_nchwc", "depthwise_conv2d_python_nhwc", "dilate_python", "dispatch",
           "gather_nd_python", "gather_python", "get_broadcast_schedule", "get_conv2d_nchw_implement",
           "get_elemwise_schedule", "get_injective_schedule", "get_reduce_schedule", "grid_sample_python",
           "group_conv1d_ncw_python", "group_norm_python", "instance_norm_python", "layer_norm_python",
           "log_softmax_python", "lrn_python", "lstm_python", "matrix_set_diag", "nll_loss", "one_hot",
           "pool_grad_nchw", "poolnd_python", "reorg_python", "resize1d_python", "resize2d_python",
           "resize3d_python", "roi_align_nchw_python", "roi_pool_nchw_python", "searchsorted_ref", "sequence_mask",
           "softmax_python", "space_to_batch_nd_python", "space_to_depth_python", "strided_set_python",
           "strided_slice_python", "upsampling_python"]
