"""The CUDA schedules TVM has for operators we schedule the simple way: every stage over
blocks and threads, injective producers inlined (:func:`topi.cuda.injective.bind_every_stage`)."""

from typing import Any

from topi.cuda.injective import fallback
from topi.traverse import new_schedule

schedule_group_conv2d_nchw = fallback("schedule_group_conv2d_nchw")
schedule_conv2d_transpose_nchw = fallback("schedule_conv2d_transpose_nchw")
schedule_conv2d_nhwc = fallback("schedule_conv2d_nhwc")
schedule_conv2d_hwcn = fallback("schedule_conv2d_hwcn")
schedule_depthwise_conv2d_nhwc = fallback("schedule_depthwise_conv2d_nhwc")
schedule_pool_grad = fallback("schedule_pool_grad")
schedule_lrn = fallback("schedule_lrn")
schedule_extern = fallback("schedule_extern")
schedule_conv1d_ncw = fallback("schedule_conv1d_ncw")
schedule_conv1d_nwc = fallback("schedule_conv1d_nwc")
schedule_group_conv1d_ncw = fallback("schedule_group_conv1d_ncw")
schedule_group_conv1d_nwc = fallback("schedule_group_conv1d_nwc")
schedule_conv1d_transpose_ncw = fallback("schedule_conv1d_transpose_ncw")
schedule_conv3d_ncdhw = fallback("schedule_conv3d_ncdhw")
schedule_conv3d_ndhwc = fallback("schedule_conv3d_ndhwc")
schedule_conv3d_transpose_ncdhw = fallback("schedule_conv3d_transpose_ncdhw")
schedule_group_conv2d_nhwc = fallback("schedule_group_conv2d_nhwc")
schedule_group_conv2d_transpose_nchw = fallback("schedule_group_conv2d_transpose_nchw")
schedule_reorg = fallback("schedule_reorg")
schedule_binarize_pack = fallback("schedule_binarize_pack")
schedule_binary_dense = fallback("schedule_binary_dense")
schedule_conv2d_NCHWc = fallback("schedule_conv2d_NCHWc")
schedule_correlation_nchw = fallback("schedule_correlation_nchw")
schedule_deformable_conv2d_nchw = fallback("schedule_deformable_conv2d_nchw")
schedule_deformable_conv2d_nhwc = fallback("schedule_deformable_conv2d_nhwc")
schedule_unique = fallback("schedule_unique")
schedule_argwhere = fallback("schedule_argwhere")
schedule_conv2d_nchw_winograd = fallback("schedule_conv2d_nchw_winograd")
schedule_sparse_dense = fallback("schedule_sparse_dense")
schedule_sparse_transpose = fallback("schedule_sparse_transpose")
schedule_roi_align = fallback("schedule_roi_align")
schedule_roi_pool = fallback("schedule_roi_pool")
schedule_batch_norm = fallback("schedule_batch_norm")
schedule_get_valid_counts = fallback("schedule_get_valid_counts")
schedule_nms = fallback("schedule_nms")
schedule_multibox_prior = fallback("schedule_multibox_prior")
schedule_multibox_transform_loc = fallback("schedule_multibox_transform_loc")
schedule_multibox_detection = fallback("schedule_multibox_detection")
schedule_proposal = fallback("schedule_proposal")

#: Sorts are extern operations whose kernels bind their own threads (:mod:`topi.merge_sort`); topk's
#: slices of the sorted lines are bound as any stage.
schedule_sort = schedule_argsort = schedule_topk = schedule_extern

#: Scans are extern operations too (one serial line per element of the other axes).
schedule_scan = schedule_extern


def schedule_lstm(outs: Any) -> Any:
    """The LSTM's scan as created: it runs on the host (a scan's steps are serial)."""
    s, _ = new_schedule("cuda.schedule_lstm", outs)
    return s
