"""Transposed convolutions (TVM's ``topi.nn.conv1d_transpose_ncw``, ``conv2d_transpose_nchw``,
``group_conv2d_transpose_nchw``, ``conv3d_transpose_ncdhw``): the gradient of a strided
convolution with respect to its input, computed as a convolution of the input dilated by the
strides (``data_dilate``) and padded by ``kernel - 1 - padding`` (``data_pad``), with the
kernel flipped and its channel axes swapped (``kernel_transform``; ``kernel`` in 1-d, as TVM
names it). Each output dimension is ``(in - 1) * stride - pad_before - pad_after + kernel +
output_padding``."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi.nn.pad import dilate, pad
from topi.utils import const_value, get_const_int, get_pad_tuple_generic, pair


def conv1d_transpose_ncw(data: Tensor, kernel: Tensor, stride: Any, padding: Any, out_dtype: str,
                         output_padding: Any) -> Tensor:
    """Input NCW, kernel ``(in_channels, out_channels, width)``."""
    return _transpose("conv1d_transpose_ncw", 1, data, kernel, stride, padding, out_dtype, output_padding, 1, "kernel")


def conv2d_transpose_nchw(Input: Tensor, Filter: Tensor, strides: Any, padding: Any,  # noqa: N803
                          out_dtype: str, output_padding: Any = (0, 0)) -> Tensor:
    """Input NCHW, Filter ``(in_channels, out_channels, rows, cols)`` (IOHW, as TVM's).

    :raises ValueError: for an output padding not smaller than its stride, or a padding larger
        than the kernel allows.
    """
    return _transpose("conv2d_transpose_nchw", 2, Input, Filter, strides, padding, out_dtype, output_padding, 1)


def group_conv2d_transpose_nchw(data: Tensor, kernel: Tensor, stride: Any, padding: Any, out_dtype: str,
                                output_padding: Any, groups: int) -> Tensor:
    """The transposed convolution of *groups* independent channel groups: kernel
    ``(in_channels, out_channels // groups, rows, cols)``."""
    if groups == 1:
        return conv2d_transpose_nchw(data, kernel, stride, padding, out_dtype, output_padding)
    return _transpose("group_conv2d_transpose_nchw", 2, data, kernel, stride, padding, out_dtype, output_padding,
                      groups)


def conv3d_transpose_ncdhw(Input: Tensor, Filter: Tensor, strides: Any, padding: Any, out_dtype: str,  # noqa: N803
                           output_padding: Any) -> Tensor:
    """Input NCDHW, Filter ``(in_channels, out_channels, depth, rows, cols)``."""
    return _transpose("conv3d_transpose_ncdhw", 3, Input, Filter, strides, padding, out_dtype, output_padding, 1)


def _transpose(op: str, ndim: int, data: Tensor, kernel: Tensor, strides: Any, padding: Any, out_dtype: str | None,
               output_padding: Any, groups: int, kernel_name: str = "kernel_transform") -> Tensor:
    for what, t in (("data", data), ("kernel", kernel)):
        if not isinstance(t, Tensor):
            raise TypeError(f"topi.nn.{op}: {what} must be a tensor, got {t!r}")
        if len(t.shape) != ndim + 2:
            raise ValueError(f"topi.nn.{op}: {what} must be {ndim + 2}-dimensional, got shape "
                             f"{list(map(str, t.shape))}")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"topi.nn.{op}: groups must be a positive int, got {groups!r}")
    strides = pair(op, "stride", strides, ndim)
    extra = pair(op, "output_padding", output_padding, ndim)
    if any(e >= s for e, s in zip(extra, strides)):
        raise ValueError(f"topi.nn.{op}: output_padding {output_padding!r} must be smaller than the strides "
                         f"{strides!r}")
    batch, channels, *_ = data.shape
    in_channels, out_per_group, *window = kernel.shape
    n_in, k_in = const_value(channels), const_value(in_channels)
    if n_in is not None and k_in not in (None, n_in):
        raise ValueError(f"topi.nn.{op}: the kernel takes {in_channels} input channels, the input has {channels} "
                         f"(the kernel must be (in_channels, out_channels{' // groups' if groups > 1 else ''}, ...))")
    if n_in is not None and n_in % groups:
        raise ValueError(f"topi.nn.{op}: {groups} groups must divide the input channels ({n_in})")
    sizes = [get_const_int(k) for k in window]
    before, after = get_pad_tuple_generic(padding, sizes, op)
    if any(max(b, a) > k - 1 for b, a, k in zip(before, after, sizes)):
        raise ValueError(f"topi.nn.{op}: padding {padding!r} is larger than the kernel "
                         f"({'x'.join(map(str, sizes))}) minus one")
    dilated = dilate(data, [1, 1, *strides], name="data_dilate")
    padded = pad(dilated, [0, 0, *(k - 1 - b for k, b in zip(sizes, before))],
                 [0, 0, *(k - 1 - a + e for k, a, e in zip(sizes, after, extra))], name="data_pad")
    flipped = te.compute((out_per_group, in_channels, *window),
                         lambda o, i, *at: kernel[(i, o, *(k - 1 - x for k, x in zip(sizes, at)))],
                         name=kernel_name)
    per_group = arith.floordiv(channels, groups)
    out_channels = arith.mul(out_per_group, groups)
    dc = te.reduce_axis((0, per_group), name="dc")
    rs = [te.reduce_axis((0, k), name=f"d{n}") for n, k in zip("dhw"[3 - ndim:], window)]

    def element(b: Any, c: Any, *at: Any) -> Any:
        channel = dc if groups == 1 else te.floordiv(c, out_per_group) * per_group + dc
        own = c if groups == 1 else te.floormod(c, out_per_group)
        return te.sum(padded[(b, channel, *(x + r for x, r in zip(at, rs)))].astype(out_dtype)
                      * flipped[(own, channel, *rs)].astype(out_dtype), axis=[dc, *rs])

    out_dtype = out_dtype or data.dtype
    shape = [batch, out_channels, *(e - k + 1 for e, k in zip(padded.shape[2:], sizes))]
    return te.compute(shape, element, tag=op, varargs_names=list("dhw"[3 - ndim:]))
