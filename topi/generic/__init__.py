"""TVM's default schedules (``topi.generic``): under a CPU target (or none) the schedule as
created, with injective stages inlined where TVM inlines them; under a GPU target
(``with Target("cuda")``) the :mod:`topi.cuda` schedule, as TVM's generic functions dispatched
by target."""

from topi.generic import conv2d
from topi.generic.default import (
    schedule_adaptive_pool,
    schedule_argsort,
    schedule_batch_matmul,
    schedule_batch_norm,
    schedule_broadcast,
    schedule_conv1d_ncw,
    schedule_conv1d_nwc,
    schedule_conv1d_transpose_ncw,
    schedule_conv2d_hwcn,
    schedule_conv2d_nchw,
    schedule_conv2d_nhwc,
    schedule_conv2d_transpose_nchw,
    schedule_conv3d_ncdhw,
    schedule_conv3d_ndhwc,
    schedule_conv3d_transpose_ncdhw,
    schedule_dense,
    schedule_depthwise_conv2d_nchw,
    schedule_depthwise_conv2d_nhwc,
    schedule_elemwise,
    schedule_extern,
    schedule_group_conv1d_ncw,
    schedule_group_conv1d_nwc,
    schedule_group_conv2d_nchw,
    schedule_group_conv2d_nhwc,
    schedule_group_conv2d_transpose_nchw,
    schedule_injective,
    schedule_injective_from_existing,
    schedule_lrn,
    schedule_pool,
    schedule_pool_grad,
    schedule_reduce,
    schedule_reorg,
    schedule_softmax,
    schedule_sort,
    schedule_topk,
)

__all__ = ["conv2d", "schedule_adaptive_pool", "schedule_argsort", "schedule_batch_matmul", "schedule_batch_norm",
           "schedule_broadcast", "schedule_conv1d_ncw", "schedule_conv1d_nwc", "schedule_conv1d_transpose_ncw",
           "schedule_conv2d_hwcn", "schedule_conv2d_nchw", "schedule_conv2d_nhwc", "schedule_conv2d_transpose_nchw",
           "schedule_conv3d_ncdhw", "schedule_conv3d_ndhwc", "schedule_conv3d_transpose_ncdhw", "schedule_dense",
           "schedule_depthwise_conv2d_nchw", "schedule_depthwise_conv2d_nhwc", "schedule_elemwise",
           "schedule_extern", "schedule_group_conv1d_ncw", "schedule_group_conv1d_nwc", "schedule_group_conv2d_nchw",
           "schedule_group_conv2d_nhwc", "schedule_group_conv2d_transpose_nchw", "schedule_injective",
           "schedule_injective_from_existing", "schedule_lrn", "schedule_pool", "schedule_pool_grad",
           "schedule_reduce", "schedule_reorg", "schedule_softmax", "schedule_sort", "schedule_topk"]
