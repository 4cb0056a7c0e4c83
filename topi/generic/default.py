"""The default schedules behind :mod:`topi.generic` (see the package)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import schedule as te
from topi import cuda
from topi.traverse import new_schedule, on_gpu


def schedule_injective_from_existing(sch: te.Schedule, out: te.Tensor) -> te.Schedule:
    """Fuse *out*'s axes into one loop in *sch*."""
    if len(out.op.axis) > 1:
        sch[out].fuse(*sch[out].op.axis)
    return sch


def _default(name: str, auto_inline: bool) -> Callable[..., te.Schedule]:
    def schedule(outs: Any, *args: Any) -> te.Schedule:
        if on_gpu():
            return getattr(cuda, name)(outs, *args)
        s, tensors = new_schedule(f"generic.{name}", outs)
        if auto_inline:
            te.schedule.AutoInlineInjective(s)
            schedule_injective_from_existing(s, tensors[0])
        return s
    schedule.__name__ = schedule.__qualname__ = name
    how = "injective stages inlined, the output fused" if auto_inline else "as created"
    schedule.__doc__ = f"The default schedule of *outs* ({how}); under a GPU target, ``topi.cuda.{name}``."
    return schedule


schedule_injective = _default("schedule_injective", True)
schedule_elemwise = _default("schedule_elemwise", True)
schedule_broadcast = _default("schedule_broadcast", True)
schedule_reduce = _default("schedule_reduce", False)
schedule_softmax = _default("schedule_softmax", False)
schedule_conv2d_nchw = _default("schedule_conv2d_nchw", False)
schedule_conv2d_nhwc = _default("schedule_conv2d_nhwc", False)
schedule_conv2d_hwcn = _default("schedule_conv2d_hwcn", False)
schedule_group_conv2d_nchw = _default("schedule_group_conv2d_nchw", False)
schedule_depthwise_conv2d_nchw = _default("schedule_depthwise_conv2d_nchw", False)
schedule_depthwise_conv2d_nhwc = _default("schedule_depthwise_conv2d_nhwc", False)
schedule_conv2d_transpose_nchw = _default("schedule_conv2d_transpose_nchw", False)
schedule_dense = _default("schedule_dense", False)
schedule_batch_matmul = _default("schedule_batch_matmul", False)
schedule_pool = _default("schedule_pool", False)
schedule_pool_grad = _default("schedule_pool_grad", False)
schedule_adaptive_pool = _default("schedule_adaptive_pool", False)
schedule_lrn = _default("schedule_lrn", False)
schedule_extern = _default("schedule_extern", False)
schedule_conv1d_ncw = _default("schedule_conv1d_ncw", False)
schedule_conv1d_nwc = _default("schedule_conv1d_nwc", False)
schedule_group_conv1d_ncw = _default("schedule_group_conv1d_ncw", False)
schedule_group_conv1d_nwc = _default("schedule_group_conv1d_nwc", False)
schedule_conv1d_transpose_ncw = _default("schedule_conv1d_transpose_ncw", False)
schedule_conv3d_ncdhw = _default("schedule_conv3d_ncdhw", False)
schedule_conv3d_ndhwc = _default("schedule_conv3d_ndhwc", False)
schedule_conv3d_transpose_ncdhw = _default("schedule_conv3d_transpose_ncdhw", False)
schedule_group_conv2d_nhwc = _default("schedule_group_conv2d_nhwc", False)
schedule_group_conv2d_transpose_nchw = _default("schedule_group_conv2d_transpose_nchw", False)
schedule_reorg = _default("schedule_reorg", False)
schedule_binarize_pack = _default("schedule_binarize_pack", False)
schedule_binary_dense = _default("schedule_binary_dense", False)
schedule_conv2d_NCHWc = _default("schedule_conv2d_NCHWc", False)
schedule_correlation_nchw = _default("schedule_correlation_nchw", False)
schedule_deformable_conv2d_nchw = _default("schedule_deformable_conv2d_nchw", False)
schedule_deformable_conv2d_nhwc = _default("schedule_deformable_conv2d_nhwc", False)
schedule_unique = _default("schedule_unique", False)
schedule_argwhere = _default("schedule_argwhere", False)
schedule_lstm = _default("schedule_lstm", False)
schedule_sparse_dense = _default("schedule_sparse_dense", False)
schedule_sparse_transpose = _default("schedule_sparse_transpose", False)
schedule_roi_align = _default("schedule_roi_align", False)
schedule_roi_pool = _default("schedule_roi_pool", False)
schedule_batch_norm = _default("schedule_batch_norm", False)
schedule_get_valid_counts = _default("schedule_get_valid_counts", False)
schedule_nms = _default("schedule_nms", False)
schedule_multibox_prior = _default("schedule_multibox_prior", False)
schedule_multibox_transform_loc = _default("schedule_multibox_transform_loc", False)
schedule_multibox_detection = _default("schedule_multibox_detection", False)
schedule_proposal = _default("schedule_proposal", False)

#: Sorts are extern operations: their schedule is the extern's.
schedule_sort = schedule_argsort = schedule_topk = schedule_extern
