"""Dense on tensor cores (TVM's ``topi.cuda.dense_tensorcore`` and
``schedule_dense_tensorcore``): ``data @ weight.T`` in fragments of 32x8x16, 16x16x16 or
8x32x16 (float16 and 8-bit integers), scheduled by :mod:`topi.cuda.tensorcore`."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi import tag
from topi.cuda.tensorcore import fragment_shape, schedule_matmul_on_tensor_cores, schedule_tagged
from topi.transform.shape import tensor
from topi.utils import get_const_tuple


def dense_tensorcore(data: Tensor, weight: Tensor, bias: Tensor | None = None, out_dtype: str | None = None) -> Tensor:
    """``data (batch, in) x weight (out, in)^T`` (+ *bias*), tagged for the tensor-core schedule."""
    data, weight = tensor("cuda.dense_tensorcore", data), tensor("cuda.dense_tensorcore", weight)
    if len(data.shape) != 2 or len(weight.shape) != 2 or (bias is not None and len(bias.shape) != 1):
        raise ValueError("topi.cuda.dense_tensorcore: data and weight are 2-d, bias 1-d")
    if data.dtype != weight.dtype:
        raise ValueError(f"topi.cuda.dense_tensorcore: data ({data.dtype}) and weight ({weight.dtype}) must agree")
    out_dtype = out_dtype or data.dtype
    batch, in_dim = get_const_tuple(data.shape)
    out_dim, w_in = get_const_tuple(weight.shape)
    if w_in != in_dim:
        raise ValueError(f"topi.cuda.dense_tensorcore: weight (out, in) must have in = {in_dim}, got {w_in}")
    fragment_shape("dense_tensorcore", batch, in_dim, out_dim, data.dtype)
    k = te.reduce_axis((0, in_dim), name="k")
    out = te.compute((batch, out_dim), lambda i, j: te.sum(
        data[i, k].astype(out_dtype) * weight[j, k].astype(out_dtype), axis=k), name="T_dense", tag="dense_tensorcore")
    if bias is not None:
        out = te.compute((batch, out_dim), lambda i, j: out[i, j] + bias[j].astype(out_dtype), tag=tag.BROADCAST)
    return out


def dense_tensorcore_cuda(data: Tensor, weight: Tensor, bias: Tensor | None = None,
                          out_dtype: str | None = None) -> Tensor:
    """:func:`dense_tensorcore` (TVM's name for the compute without AutoTVM's wrapper)."""
    return dense_tensorcore(data, weight, bias, out_dtype)


def schedule_dense_tensorcore(outs: Any, **knobs: int) -> te.Schedule:
    """The schedule of :func:`dense_tensorcore` and its fused element-wise epilogue; *knobs*
    (``block_row_warps``, ``block_col_warps``, ``warp_row_tiles``, ``warp_col_tiles``,
    ``chunk``, ``offset``, ``offsetCS``, ``vec``) override AutoTVM's fallback values."""
    return schedule_tagged("schedule_dense_tensorcore", outs, "dense_tensorcore",
                           schedule_matmul_on_tensor_cores, knobs)
