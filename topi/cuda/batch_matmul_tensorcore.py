"""Batched matrix products on tensor cores (TVM's ``topi.cuda.batch_matmul_tensorcore`` and
``schedule_batch_matmul_tensorcore``): ``x (batch, M, K) @ y (batch, N, K)^T``, each batch over
``blockIdx.z``, scheduled by :mod:`topi.cuda.tensorcore`."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi.cuda.tensorcore import fragment_shape, schedule_matmul_on_tensor_cores, schedule_tagged
from topi.transform.shape import tensor
from topi.utils import get_const_tuple


def batch_matmul_tensorcore(x: Tensor, y: Tensor, out_shape: Any = None, out_dtype: str | None = None,
                            transpose_a: bool = False, transpose_b: bool = True) -> Tensor:
    """``x (batch, M, K) x y (batch, N, K)^T``, tagged for the tensor-core schedule (TVM's
    signature: only ``transpose_a=False, transpose_b=True``)."""
    if transpose_a or not transpose_b:
        raise ValueError("topi.cuda.batch_matmul_tensorcore: takes x (batch, M, K) and y (batch, N, K) only "
                         "(transpose_a=False, transpose_b=True)")
    return batch_matmul_tensorcore_cuda(x, y, out_dtype)


def batch_matmul_tensorcore_cuda(x: Tensor, y: Tensor, out_dtype: str | None = None) -> Tensor:
    """The compute of :func:`batch_matmul_tensorcore`."""
    op = "cuda.batch_matmul_tensorcore"
    x, y = tensor(op, x), tensor(op, y)
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise ValueError(f"topi.{op}: x and y are 3-d (batch, rows, K)")
    (batch, rows, depth), (y_batch, cols, y_depth) = get_const_tuple(x.shape), get_const_tuple(y.shape)
    if (batch, depth) != (y_batch, y_depth) or x.dtype != y.dtype:
        raise ValueError(f"topi.{op}: x {list(x.shape)} {x.dtype} and y {list(y.shape)} {y.dtype} must agree in "
                         "batch, K and dtype")
    fragment_shape("batch_matmul_tensorcore", rows, depth, cols, x.dtype)
    out_dtype = out_dtype or x.dtype
    k = te.reduce_axis((0, depth), name="k")
    return te.compute((batch, rows, cols), lambda b, i, j: te.sum(
        x[b, i, k].astype(out_dtype) * y[b, j, k].astype(out_dtype), axis=k), tag="batch_matmul_tensorcore")


def schedule_batch_matmul_tensorcore(outs: Any, **knobs: int) -> te.Schedule:
    """The schedule of :func:`batch_matmul_tensorcore` and its fused element-wise epilogue;
    *knobs* as :func:`topi.cuda.tensorcore.schedule_matmul_on_tensor_cores` takes them."""
    return schedule_tagged("schedule_batch_matmul_tensorcore", outs, "batch_matmul_tensorcore",
                           schedule_matmul_on_tensor_cores, knobs)
