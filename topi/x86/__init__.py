"""TVM's x86 schedules (``topi.x86``): tiles, vector loops and parallel loops for the CPU."""

from topi.vision.rcnn import roi_align_nchw
from topi.x86.bnn import schedule_binarize_pack, schedule_binary_dense
from topi.x86.computes import (
    batch_matmul,
    conv2d_transpose_nchw,
    dense_dynamic,
    dense_nopack,
    dense_pack,
    depthwise_conv2d_nchw,
    schedule_concatenate,
    schedule_dense_dynamic,
    schedule_dense_nopack,
    schedule_dense_pack,
)
from topi.x86.conv2d import (
    schedule_conv2d_hwcn,
    schedule_conv2d_nchw,
    schedule_conv2d_nhwc,
    schedule_conv2d_transpose_nchw,
    schedule_depthwise_conv2d_nchw,
    schedule_group_conv2d_nchw,
)
from topi.x86.conv_nd import (
    conv1d_ncw,
    conv1d_nwc,
    conv2d_NCHWc,
    conv3d_ncdhw,
    conv3d_ndhwc,
    conv3d_transpose_ncdhw,
    schedule_conv1d_ncw,
    schedule_conv1d_nwc,
    schedule_conv2d_NCHWc,
    schedule_conv3d_ncdhw,
    schedule_conv3d_ndhwc,
    schedule_conv3d_transpose_ncdhw,
    schedule_group_conv1d_ncw,
    schedule_group_conv1d_nwc,
)
from topi.x86.dense import schedule_batch_matmul, schedule_dense
from topi.x86.depthwise_conv2d import depthwise_conv2d_NCHWc, schedule_depthwise_conv2d_NCHWc
from topi.x86.injective import (
    schedule_batch_norm,
    schedule_broadcast,
    schedule_elemwise,
    schedule_injective,
    schedule_injective_from_existing,
    schedule_reduce,
)
from topi.x86.nn import schedule_adaptive_pool, schedule_lrn, schedule_pool, schedule_softmax
from topi.x86.sparse import schedule_sparse_dense

__all__ = ["batch_matmul", "conv1d_ncw", "conv1d_nwc", "conv2d_NCHWc", "conv2d_transpose_nchw", "conv3d_ncdhw",
           "conv3d_ndhwc", "conv3d_transpose_ncdhw", "dense_dynamic", "dense_nopack", "dense_pack",
           "depthwise_conv2d_NCHWc", "depthwise_conv2d_nchw", "roi_align_nchw", "schedule_adaptive_pool",
           "schedule_batch_matmul", "schedule_batch_norm", "schedule_binarize_pack", "schedule_binary_dense",
           "schedule_broadcast", "schedule_concatenate", "schedule_conv1d_ncw", "schedule_conv1d_nwc",
           "schedule_conv2d_NCHWc", "schedule_conv2d_hwcn", "schedule_conv2d_nchw", "schedule_conv2d_nhwc",
           "schedule_conv2d_transpose_nchw", "schedule_conv3d_ncdhw", "schedule_conv3d_ndhwc",
           "schedule_conv3d_transpose_ncdhw", "schedule_dense", "schedule_dense_dynamic", "schedule_dense_nopack",
           "schedule_dense_pack", "schedule_depthwise_conv2d_NCHWc", "schedule_depthwise_conv2d_nchw",
           "schedule_elemwise", "schedule_group_conv1d_ncw", "schedule_group_conv1d_nwc",
           "schedule_group_conv2d_nchw", "schedule_injective", "schedule_injective_from_existing", "schedule_lrn",
           "schedule_pool", "schedule_reduce", "schedule_softmax", "schedule_sparse_dense"]
