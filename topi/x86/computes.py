"""The computes TVM's ``topi.x86`` names (``dense_nopack``, ``dense_pack``, ``batch_matmul``,
``conv2d_transpose_nchw`` ...): the generic ones of ``topi.nn``, which this package's x86
schedules tile and vectorize; and the x86 names of those schedules."""

from topi.nn import batch_matmul, conv2d_transpose_nchw, dense, depthwise_conv2d_nchw
from topi.x86.dense import schedule_dense
from topi.x86.injective import schedule_injective

dense_nopack = dense_pack = dense_dynamic = dense
schedule_dense_nopack = schedule_dense_pack = schedule_dense_dynamic = schedule_dense
schedule_concatenate = schedule_injective

__all__ = ["batch_matmul", "conv2d_transpose_nchw", "dense_dynamic", "dense_nopack", "dense_pack",
           "depthwise_conv2d_nchw", "schedule_concatenate", "schedule_dense_dynamic", "schedule_dense_nopack",
           "schedule_dense_pack"]
