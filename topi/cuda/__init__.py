"""TVM's CUDA schedules (``topi.cuda``), run on the C target with a GPU's semantics (threads,
shared and local memory, barriers): blocks and threads bound, reductions across threads."""

from topi.cuda import tensor_intrin, tensorcore
from topi.cuda.batch_matmul_tensorcore import (
    batch_matmul_tensorcore,
    batch_matmul_tensorcore_cuda,
    schedule_batch_matmul_tensorcore,
)
from topi.cuda.conv_tensorcore import (
    conv2d_nhwc_tensorcore,
    conv3d_ndhwc_tensorcore,
    ndhwc_tensorcore_cuda,
    nhwc_tensorcore_cuda,
    schedule_conv2d_nhwc_tensorcore,
    schedule_conv3d_ndhwc_tensorcore,
    schedule_ndhwc_tensorcore_cuda,
    schedule_nhwc_tensorcore_cuda,
)
from topi.cuda.dense_tensorcore import dense_tensorcore, dense_tensorcore_cuda, schedule_dense_tensorcore
from topi.cuda.depthwise_conv2d import (
    schedule_depthwise_conv2d_backward_input_nhwc,
    schedule_depthwise_conv2d_backward_weight_nhwc,
)
from topi.cuda.fallbacks import (
    schedule_argsort,
    schedule_argwhere,
    schedule_batch_norm,
    schedule_binarize_pack,
    schedule_binary_dense,
    schedule_conv1d_ncw,
    schedule_conv1d_nwc,
    schedule_conv1d_transpose_ncw,
    schedule_conv2d_hwcn,
    schedule_conv2d_nchw_winograd,
    schedule_conv2d_NCHWc,
    schedule_conv2d_nhwc,
    schedule_conv2d_transpose_nchw,
    schedule_conv3d_ncdhw,
    schedule_conv3d_ndhwc,
    schedule_conv3d_transpose_ncdhw,
    schedule_correlation_nchw,
    schedule_deformable_conv2d_nchw,
    schedule_deformable_conv2d_nhwc,
    schedule_depthwise_conv2d_nhwc,
    schedule_extern,
    schedule_get_valid_counts,
    schedule_group_conv1d_ncw,
    schedule_group_conv1d_nwc,
    schedule_group_conv2d_nchw,
    schedule_group_conv2d_nhwc,
    schedule_group_conv2d_transpose_nchw,
    schedule_lrn,
    schedule_lstm,
    schedule_multibox_detection,
    schedule_multibox_prior,
    schedule_multibox_transform_loc,
    schedule_nms,
    schedule_pool_grad,
    schedule_proposal,
    schedule_reorg,
    schedule_roi_align,
    schedule_roi_pool,
    schedule_scan,
    schedule_sort,
    schedule_sparse_dense,
    schedule_sparse_transpose,
    schedule_topk,
    schedule_unique,
)
from topi.cuda.injective import (
    schedule_broadcast,
    schedule_elemwise,
    schedule_injective,
    schedule_injective_from_existing,
)
from topi.cuda.nn import (
    schedule_adaptive_pool,
    schedule_batch_matmul,
    schedule_conv2d_nchw,
    schedule_dense,
    schedule_depthwise_conv2d_nchw,
    schedule_pool,
)
from topi.cuda.reduction import schedule_reduce, schedule_softmax
from topi.cuda.transform import (
    invert_permutation,
    scatter_elements,
    schedule_transpose,
    schedule_transpose_from_existing,
)
from topi.cuda.vision import (
    all_class_non_max_suppression,
    get_valid_counts,
    multibox_detection,
    multibox_prior,
    multibox_transform_loc,
    non_max_suppression,
    proposal,
)
from topi.gpu_unique import unique
from topi.merge_sort import argsort, sort, topk
from topi.nn import (
    batch_matmul,
    conv1d_ncw,
    conv1d_nwc,
    conv1d_transpose_ncw,
    conv2d_hwcn,
    conv2d_nchw,
    conv2d_transpose_nchw,
    conv3d_ncdhw,
    conv3d_ndhwc,
    conv3d_transpose_ncdhw,
    correlation_nchw,
    deformable_conv2d_nchw,
    depthwise_conv2d_nchw,
    group_conv1d_ncw,
    group_conv1d_nwc,
    group_conv2d_nchw,
    sparse_dense,
)
from topi.nn.winograd import conv2d_nchw_winograd
from topi.scan import exclusive_scan, inclusive_scan
from topi.scan import gpu_cumprod as cumprod
from topi.scan import gpu_cumsum as cumsum
from topi.scan import gpu_scanop as scanop
from topi.searchsorted import cuda_searchsorted as searchsorted
from topi.signal import cuda_dft as dft
from topi.transform import scatter_nd
from topi.unique import cuda_argwhere as argwhere

__all__ = ["all_class_non_max_suppression", "argsort", "argwhere", "batch_matmul", "batch_matmul_tensorcore",
           "batch_matmul_tensorcore_cuda", "conv1d_ncw", "conv1d_nwc", "conv1d_transpose_ncw", "conv2d_hwcn",
           "conv2d_nchw", "conv2d_nchw_winograd", "conv2d_nhwc_tensorcore", "conv2d_transpose_nchw", "conv3d_ncdhw",
           "conv3d_ndhwc", "conv3d_ndhwc_tensorcore", "conv3d_transpose_ncdhw", "correlation_nchw", "cumprod",
           "cumsum", "deformable_conv2d_nchw", "dense_tensorcore", "dense_tensorcore_cuda", "depthwise_conv2d_nchw",
           "dft", "exclusive_scan", "get_valid_counts", "group_conv1d_ncw", "group_conv1d_nwc", "group_conv2d_nchw",
           "inclusive_scan", "invert_permutation", "multibox_detection", "multibox_prior", "multibox_transform_loc",
           "ndhwc_tensorcore_cuda", "nhwc_tensorcore_cuda", "non_max_suppression", "proposal", "scanop",
           "scatter_elements", "scatter_nd", "schedule_adaptive_pool", "schedule_argsort", "schedule_argwhere",
           "schedule_batch_matmul", "schedule_batch_matmul_tensorcore", "schedule_batch_norm",
           "schedule_binarize_pack", "schedule_binary_dense", "schedule_broadcast", "schedule_conv1d_ncw",
           "schedule_conv1d_nwc", "schedule_conv1d_transpose_ncw", "schedule_conv2d_NCHWc", "schedule_conv2d_hwcn",
           "schedule_conv2d_nchw", "schedule_conv2d_nchw_winograd", "schedule_conv2d_nhwc",
           "schedule_conv2d_nhwc_tensorcore", "schedule_conv2d_transpose_nchw", "schedule_conv3d_ncdhw",
           "schedule_conv3d_ndhwc", "schedule_conv3d_ndhwc_tensorcore", "schedule_conv3d_transpose_ncdhw",
           "schedule_correlation_nchw", "schedule_deformable_conv2d_nchw", "schedule_deformable_conv2d_nhwc",
           "schedule_dense", "schedule_dense_tensorcore", "schedule_depthwise_conv2d_backward_input_nhwc",
           "schedule_depthwise_conv2d_backward_weight_nhwc", "schedule_depthwise_conv2d_nchw",
           "schedule_depthwise_conv2d_nhwc", "schedule_elemwise", "schedule_extern", "schedule_get_valid_counts",
           "schedule_group_conv1d_ncw", "schedule_group_conv1d_nwc", "schedule_group_conv2d_nchw",
           "schedule_group_conv2d_nhwc", "schedule_group_conv2d_transpose_nchw", "schedule_injective",
           "schedule_injective_from_existing", "schedule_lrn", "schedule_lstm", "schedule_multibox_detection",
           "schedule_multibox_prior", "schedule_multibox_transform_loc", "schedule_ndhwc_tensorcore_cuda",
           "schedule_nhwc_tensorcore_cuda", "schedule_nms", "schedule_pool", "schedule_pool_grad",
           "schedule_proposal", "schedule_reduce", "schedule_reorg", "schedule_roi_align", "schedule_roi_pool",
           "schedule_scan", "schedule_softmax", "schedule_sort", "schedule_sparse_dense",
           "schedule_sparse_transpose", "schedule_topk", "schedule_transpose", "schedule_transpose_from_existing",
           "schedule_unique", "searchsorted", "sort", "sparse_dense", "tensor_intrin", "tensorcore", "topk",
           "unique"]
