"""TVM's ``tvm.testing.auto_scheduler``: small workloads for auto_scheduler tests (matrix
products, a convolution with batch norm and relu, pooling, softmax, reductions), registered
under their names, and a tiled matrix product state."""

from __future__ import annotations

from typing import Any

import schedule as te
import topi
from tune.auto_scheduler import ComputeDAG, register_workload


def _matmul(a: Any, b: Any, name: str, attrs: Any = None) -> Any:
    k = te.reduce_axis((0, a.shape[1]), name="k")
    return te.compute((a.shape[0], b.shape[1]), lambda i, j: te.sum(a[i, k] * b[k, j], axis=[k]), name=name,
                      attrs=attrs)


@register_workload
def matmul_auto_scheduler_test(N: int, M: int, K: int) -> list[Any]:  # noqa: N803 - TVM's names
    """``C = A @ B``, A of N x K, B of K x M (B's layout free to rewrite)."""
    A, B = te.placeholder((N, K), name="A"), te.placeholder((K, M), name="B")
    return [A, B, _matmul(A, B, "C", attrs={"layout_free_placeholders": [B]})]


@register_workload("matmul_auto_scheduler_test_rename_1")
def matmul_auto_scheduler_test_rename_0(N: int, M: int, K: int) -> list[Any]:  # noqa: N803
    """:func:`matmul_auto_scheduler_test` under another function name and a registered name."""
    return matmul_auto_scheduler_test(N, M, K)


@register_workload
def double_matmul_auto_scheduler_test(N: int) -> list[Any]:  # noqa: N803
    """``E = (A @ B) @ C``, all N x N."""
    A, B, C = (te.placeholder((N, N), name=n) for n in "ABC")
    D = _matmul(A, B, "D")
    return [A, B, C, _matmul(D, C, "E")]


@register_workload
def parallel_matmul_auto_scheduler_test(N: int) -> list[Any]:  # noqa: N803
    """``D = A @ B`` and ``E = A @ C``, all N x N."""
    A, B, C = (te.placeholder((N, N), name=n) for n in "ABC")
    return [A, B, C, _matmul(A, B, "D"), _matmul(A, C, "E")]


@register_workload
def conv2d_nchw_bn_relu_auto_scheduler_test(N: int, H: int, W: int, CI: int, CO: int, kernel_size: int,  # noqa: N803
                                            strides: Any, padding: Any, dilation: int = 1) -> list[Any]:
    """relu((conv2d_nchw(data, kernel) + bias) * bn_scale + bn_offset), per output channel."""
    data = te.placeholder((N, CI, H, W), name="Data")
    kernel = te.placeholder((CO, CI, kernel_size, kernel_size), name="Kernel")
    bias = te.placeholder((CO, 1, 1), name="Bias")
    bn_scale = te.placeholder((CO, 1, 1), name="Bn_scale")
    bn_offset = te.placeholder((CO, 1, 1), name="Bn_offset")
    conv = topi.nn.conv2d_nchw(data, kernel, strides, padding, dilation)
    out = topi.add(conv, bias)
    out = topi.multiply(out, bn_scale)
    out = topi.add(out, bn_offset)
    return [data, kernel, bias, bn_offset, bn_scale, topi.nn.relu(out)]


@register_workload
def max_pool2d_auto_scheduler_test(N: int, H: int, W: int, CI: int, padding: int) -> list[Any]:  # noqa: N803
    """A 2 x 2 max pool of stride 1 over NCHW data."""
    data = te.placeholder((N, CI, H, W), name="Data")
    return [data, topi.nn.pool2d(data, [2, 2], [1, 1], [1, 1], [padding] * 4, "max")]


@register_workload
def min_nm_auto_scheduler_test(N: int, M: int) -> list[Any]:  # noqa: N803
    """The minimum of each row of an N x M matrix."""
    A = te.placeholder((N, M), name="A")
    return [A, topi.min(A, axis=[1])]


@register_workload
def softmax_nm_auto_scheduler_test(N: int, M: int) -> list[Any]:  # noqa: N803
    """The softmax of each row of an N x M matrix."""
    A = te.placeholder((N, M), name="A")
    return [A, topi.nn.softmax(A, axis=1)]


@register_workload
def softmax_abcd_auto_scheduler_test(a: int, b: int, c: int, d: int) -> list[Any]:
    """The softmax along the last axis of an a x b x c x d tensor."""
    A = te.placeholder((a, b, c, d), name="A")
    return [A, topi.nn.softmax(A, axis=-1)]


@register_workload
def zero_rank_reduce_auto_scheduler_test(N: int) -> list[Any]:  # noqa: N803
    """The sum of a vector into a 0-d tensor."""
    A = te.placeholder((N,), name="A")
    k = te.reduce_axis((0, N), name="k")
    return [A, te.compute((), lambda: te.sum(A[k], k), name="B")]


@register_workload
def zero_rank_compute_auto_scheduler_test(N: int) -> list[Any]:  # noqa: N803
    """A vector plus a 0-d tensor."""
    A, B = te.placeholder((N,), name="A"), te.placeholder((), name="B")
    return [A, B, te.compute((N,), lambda i: A[i] + B[()], name="C")]


@register_workload
def conv2d_winograd_nhwc_auto_scheduler_test(N: int, H: int, W: int, CI: int, CO: int,  # noqa: N803
                                             kernel_size: int = 3, stride: int = 1, padding: int = 0,
                                             dilation: int = 1) -> list[Any]:
    """A 3 x 3 NHWC convolution by Winograd's F(4, 3), its kernel given transformed (6 x 6 x
    CO x CI)."""
    inputs = te.placeholder((N, H, W, CI), name="inputs")
    weight = te.placeholder((6, 6, CO, CI), name="weight")
    return [inputs, weight, topi.nn.conv2d_winograd_nhwc(inputs, weight, stride, padding, dilation, "float32",
                                                          pre_computed=True)]


def invalid_compute_definition() -> list[Any]:
    """A compute whose two reduction iterators share a name (a DAG refuses it)."""
    A = te.placeholder((10, 10), name="A")
    r1, r2 = te.reduce_axis((0, 2), name="r1"), te.reduce_axis((0, 2), name="r1")
    return [A, te.compute((10,), lambda i: te.sum(A[i, r1 + r2], axis=[r1, r2]), name="B")]


def get_tiled_matmul() -> tuple[ComputeDAG, Any]:
    """A 512-cube matrix product's DAG and a state tiling it: i and j split in four levels,
    the levels interleaved, the reduction innermost."""
    A, B, C = matmul_auto_scheduler_test(512, 512, 512)
    dag = ComputeDAG([A, B, C])
    s = dag.get_init_state()
    i_parts = s.split(C, s[C].iters[0], [4, 8, 8])
    j_parts = s.split(C, s[C].iters[4], [8, 4, 4])
    order = [part for pair in zip(i_parts, j_parts) for part in pair]
    s.reorder(C, [*order, s[C].iters[8]])
    return dag, s


__all__ = ["conv2d_nchw_bn_relu_auto_scheduler_test", "conv2d_winograd_nhwc_auto_scheduler_test",
           "double_matmul_auto_scheduler_test", "get_tiled_matmul", "invalid_compute_definition",
           "matmul_auto_scheduler_test", "matmul_auto_scheduler_test_rename_0", "max_pool2d_auto_scheduler_test",
           "min_nm_auto_scheduler_test", "parallel_matmul_auto_scheduler_test", "softmax_abcd_auto_scheduler_test",
           "softmax_nm_auto_scheduler_test", "zero_rank_compute_auto_scheduler_test",
           "zero_rank_reduce_auto_scheduler_test"]
