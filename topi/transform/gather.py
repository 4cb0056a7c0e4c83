"""Transforms that read by data-given indices or build tensors from shapes (TVM's
``topi.gather``, ``gather_nd``, ``one_hot``, ``sequence_mask``, ``reverse_sequence``,
``expand_like``, ``arange``, ``shape`` and ``ndarray_size``), tagged ``injective``. A read at an
index taken from data is checked while the kernel runs, as every such read is."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.transform.shape import tensor
from topi.utils import const_value


def _axis(op: str, axis: int, ndim: int) -> int:
    if not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(f"topi.{op}: axis {axis!r} is out of range for {ndim} dimensions")
    return axis % ndim


def _integer(op: str, t: Tensor, what: str) -> Tensor:
    t = tensor(op, t)
    if not t.dtype.startswith(("int", "uint")):
        raise TypeError(f"topi.{op}: {what} must be integers, got dtype {t.dtype}")
    return t


def gather(data: Tensor, axis: int, indices: Tensor) -> Tensor:
    """``out[i...] = data[i...]`` with position *axis* replaced by ``indices[i...]`` (NumPy's
    ``take_along_axis``); *indices* has *data*'s rank."""
    data, indices = tensor("gather", data), _integer("gather", indices, "indices")
    if len(indices.shape) != len(data.shape):
        raise ValueError(f"topi.gather: indices have {len(indices.shape)} dimensions, data {len(data.shape)}")
    axis = _axis("gather", axis, len(data.shape))

    def element(*i: Any) -> Any:
        at = list(i)
        at[axis] = indices[i].astype(i[axis].dtype)
        return data[tuple(at)]
    return te.compute(indices.shape, element, name="T_gather", tag=tag.INJECTIVE)


def gather_nd(a: Tensor, indices: Tensor, batch_dims: int = 0) -> Tensor:
    """``out[y..., x...] = a[indices[0, y...], ..., indices[M-1, y...], x...]`` for the M rows
    of *indices* (TVM's ``gather_nd``).

    :raises ValueError: for *batch_dims* other than 0, or more index rows than *a* has axes.
    """
    a, indices = tensor("gather_nd", a), tensor("gather_nd", indices)  # float indices are cast, as in TVM
    if batch_dims != 0:
        raise ValueError("topi.gather_nd: batch_dims other than 0 is not supported")
    rows = const_value(indices.shape[0])
    if rows is None or rows > len(a.shape):
        raise ValueError(f"topi.gather_nd: indices' first dimension ({indices.shape[0]}) must be a constant no "
                         f"larger than a's {len(a.shape)} dimensions")
    lead = len(indices.shape) - 1

    def element(*i: Any) -> Any:
        y, x = i[:lead], i[lead:]
        picked = [indices[(arith.const(m, "int32"), *y)].astype("int32") for m in range(rows)]
        return a[(*picked, *x)]
    return te.compute((*indices.shape[1:], *a.shape[rows:]), element, name="T_gather_nd", tag=tag.INJECTIVE)


def one_hot(indices: Tensor, on_value: Any, off_value: Any, depth: int, axis: int, dtype: str) -> Tensor:
    """*on_value* where the new axis (of length *depth*, at *axis*; -1 is last) equals the index,
    else *off_value*."""
    indices = _integer("one_hot", indices, "indices")
    ndim = len(indices.shape) + 1
    axis = _axis("one_hot", axis, ndim)
    on, off = arith.cast(dtype, arith.convert(on_value)), arith.cast(dtype, arith.convert(off_value))
    shape = (*indices.shape[:axis], depth, *indices.shape[axis:])

    def element(*i: Any) -> Any:
        index = indices[(*i[:axis], *i[axis + 1:])]
        return te.Select(index == i[axis].astype(index.dtype), on, off)
    return te.compute(shape, element, name="T_one_hot", tag=tag.INJECTIVE)


def sequence_mask(data: Tensor, valid_length: Tensor, mask_value: Any = 0, axis: int = 0) -> Tensor:
    """*data* with the steps of each sequence past its valid length set to *mask_value*; *axis*
    (0 or 1) is the step axis, the other of the first two the batch axis."""
    data, valid_length = tensor("sequence_mask", data), _integer("sequence_mask", valid_length, "lengths")
    if axis not in (0, 1):
        raise ValueError(f"topi.sequence_mask: axis is 0 or 1, not {axis!r}")
    value = arith.cast(data.dtype, arith.convert(mask_value))

    def element(*i: Any) -> Any:
        length = valid_length[i[1 - axis]].astype(i[axis].dtype)
        return te.Select(i[axis] >= length, value, data[i])
    return te.compute(data.shape, element, name="T_sequence_mask", tag=tag.INJECTIVE)


def reverse_sequence(a: Tensor, seq_lengths: Tensor, seq_axis: int = 1, batch_axis: int = 0) -> Tensor:
    """*a* with the first ``seq_lengths[b]`` steps along *seq_axis* of each batch b reversed (a
    length past the axis reverses all of it; 0 and 1 reverse nothing)."""
    a, seq_lengths = tensor("reverse_sequence", a), _integer("reverse_sequence", seq_lengths, "lengths")
    seq_axis = _axis("reverse_sequence", seq_axis, len(a.shape))
    batch_axis = _axis("reverse_sequence", batch_axis, len(a.shape))
    extent = a.shape[seq_axis]
    lengths, batch = const_value(seq_lengths.shape[0]), const_value(a.shape[batch_axis])
    if len(seq_lengths.shape) != 1 or (lengths is not None and batch is not None and lengths != batch):
        raise ValueError(f"topi.reverse_sequence: seq_lengths must hold one length per batch: batch axis "
                         f"{batch_axis} has {a.shape[batch_axis]}, seq_lengths has shape "
                         f"{list(map(str, seq_lengths.shape))}")

    def element(*i: Any) -> Any:
        s = i[seq_axis]
        length = seq_lengths[i[batch_axis]].astype(s.dtype)
        source = te.if_then_else(te.any(length <= 1, length <= s), s,
                                 te.if_then_else(length > extent, extent - 1 - s, length - 1 - s))
        at = list(i)
        at[seq_axis] = source
        return a[tuple(at)]
    return te.compute(a.shape, element, name="T_reverse_sequence", tag=tag.INJECTIVE)


def expand_like(a: Tensor, shape_like: Tensor, axis: Sequence[int]) -> Tensor:
    """*a* broadcast to *shape_like*'s shape along the new axes *axis* (positions in the output)."""
    a, shape_like = tensor("expand_like", a), tensor("expand_like", shape_like)
    ndim = len(shape_like.shape)
    axes = sorted({_axis("expand_like", x, ndim) for x in axis})
    if len(a.shape) + len(axes) != ndim:
        raise ValueError(f"topi.expand_like: a has {len(a.shape)} dimensions; with {len(axes)} new ones it is not "
                         f"shape_like's {ndim}")
    kept = [k for k in range(ndim) if k not in axes]
    return te.compute(shape_like.shape, lambda *i: a[tuple(i[k] for k in kept)], name="T_expand_like",
                      tag=tag.INJECTIVE)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: str = "float32") -> Tensor:
    """``start, start + step, ...`` up to *stop* (excluded), as NumPy's ``arange``; one argument is
    the stop.

    :raises ValueError: for a step of 0, or bounds that are not numbers.
    """
    if stop is None:
        start, stop = 0, start
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (start, stop, step)):
        raise ValueError(f"topi.arange: start, stop and step are numbers, got {start!r}, {stop!r}, {step!r}")
    if step == 0:
        raise ValueError("topi.arange: step must not be 0")
    count = max(0, math.ceil((stop - start) / step))
    first, stride = arith.const(start, dtype), arith.const(step, dtype)
    return te.compute((count,), lambda i: first + i.astype(dtype) * stride, name="T_arange", tag=tag.INJECTIVE)


def shape(array: Tensor, dtype: str = "int32") -> Tensor:
    """The shape of *array* as a one-dimensional tensor of *dtype*."""
    array = tensor("shape", array)
    dims = [arith.cast(dtype, d) for d in array.shape]

    def element(i: Any) -> Any:
        out = dims[-1]
        for k in range(len(dims) - 2, -1, -1):
            out = te.Select(i == k, dims[k], out)
        return out
    return te.compute((len(dims),), element, name="T_shape", tag=tag.INJECTIVE)


def ndarray_size(array: Tensor, dtype: str = "int32") -> Tensor:
    """The number of elements of *array*, a zero-dimensional tensor of *dtype*."""
    array = tensor("ndarray_size", array)
    size = arith.const(1, dtype)
    for d in array.shape:
        size = size * arith.cast(dtype, d)
    return te.compute((), lambda: size, name="T_ndarray_size", tag=tag.INJECTIVE)


def unravel_index(indices: Tensor, shape: Tensor) -> Tensor:
    """The coordinates of flat *indices* (a scalar or a vector) in a tensor of *shape* (a vector
    read at run time), one row per dimension (NumPy's ``unravel_index``, floor division)."""
    indices, shape = _integer("unravel_index", indices, "indices"), _integer("unravel_index", shape, "shape")
    if len(indices.shape) > 1 or len(shape.shape) != 1:
        raise ValueError("topi.unravel_index: indices are a scalar or a vector, and shape a vector")
    rank = const_value(shape.shape[0])
    if rank is None:
        raise ValueError("topi.unravel_index: the shape vector's length must be a constant")
    dtype = indices.dtype

    def element(k: Any, *i: Any) -> Any:
        flat = indices[i] if i else indices[()]
        dims = [shape[arith.const(d, "int32")].astype(dtype) for d in range(rank)]
        out = arith.const(0, dtype)
        for d in range(rank - 1, -1, -1):  # the row k: the flat index over the product of the dims after k
            inner = arith.const(1, dtype)
            for later in dims[d + 1:]:
                inner = inner * later
            out = te.Select(k == d, te.floormod(te.floordiv(flat, inner), dims[d]), out)
        return out
    return te.compute((rank, *indices.shape), element, name="T_unravel_index", tag=tag.INJECTIVE)
