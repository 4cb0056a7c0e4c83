"""Pooling (TVM's ``topi.nn.pool2d``, ``adaptive_pool`` and ``global_pool``) over the ``H`` and
``W`` axes of a layout such as ``NCHW`` or ``NHWC``: max, or average (``pool_sum`` divided by the
window's size, padding counted or not), with TVM's stage names and tags."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.nn.pad import pad
from topi.utils import const_value, pair


def spatial_axes(op: str, data: Any, layout: str) -> tuple[int, int]:
    """The positions of ``H`` and ``W`` in *layout*, which must name each axis of *data* once."""
    if not isinstance(data, Tensor):
        raise TypeError(f"topi.nn.{op}: takes a tensor, got {data!r}")
    if not isinstance(layout, str) or len(layout) != len(data.shape) or "H" not in layout or "W" not in layout \
            or not layout.isalpha() or not layout.isupper() or len(set(layout)) != len(layout):
        raise ValueError(f"topi.nn.{op}: layout {layout!r} must name each of the {len(data.shape)} axes once, "
                         f"H and W among them (as NCHW or NHWC)")
    return layout.index("H"), layout.index("W")


def _pool_type(op: str, pool_type: Any) -> str:
    if pool_type not in ("max", "avg"):
        raise ValueError(f"topi.nn.{op}: pool_type must be 'max' or 'avg', got {pool_type!r}")
    return pool_type


def pool2d(data: Tensor, kernel: Any, stride: Any, dilation: Any, padding: Sequence[int], pool_type: str,
           ceil_mode: bool = False, layout: str = "NCHW", count_include_pad: bool = True) -> Tensor:
    """Max or average pooling with a *kernel* window, *padding* as (top, left, bottom, right).
    *ceil_mode* adds the last, partial window; *count_include_pad* divides an average by the
    window's size with the padding (clipped to the padded input) rather than without."""
    axes = spatial_axes("pool2d", data, layout)
    kind = _pool_type("pool2d", pool_type)
    kernel_ = pair("pool2d", "kernel", kernel)
    strides, dilations = pair("pool2d", "stride", stride), pair("pool2d", "dilation", dilation)
    if not isinstance(padding, (list, tuple)) or len(padding) != 4:
        raise ValueError(f"topi.nn.pool2d: padding must be (top, left, bottom, right), got {padding!r}")
    head = pair("pool2d", "padding", padding[:2])
    tail = pair("pool2d", "padding", padding[2:])
    extra = [s - 1 if ceil_mode else 0 for s in strides]
    before, after = [0] * len(data.shape), [0] * len(data.shape)
    shape = list(data.shape)
    for k, a in enumerate(axes):
        before[a], after[a] = head[k], tail[k] + extra[k]
        span = (kernel_[k] - 1) * dilations[k] + 1
        shape[a] = arith.add(arith.floordiv(arith.add(arith.sub(data.shape[a], span), before[a] + after[a]),
                                            strides[k]), 1)
        if const_value(shape[a]) is not None and const_value(shape[a]) < 1:
            raise ValueError(f"topi.nn.pool2d: a window spanning {span} does not fit axis {layout[a]} of "
                             f"{data.shape[a]} padded by {before[a]} + {after[a]}")
    padded = any(before) or any(after)
    rv = [te.reduce_axis((0, kernel_[k]), name=f"rv{k}") for k in range(2)]

    def window(index: Sequence[Any], source: Tensor) -> Any:
        at = list(index)
        for k, a in enumerate(axes):
            at[a] = index[a] * strides[k] + rv[k] * dilations[k]
        return source[tuple(at)]

    if kind == "max":
        source = pad(data, before, after, te.min_value(data.dtype), name="pad_temp") if padded else data
        return te.compute(shape, lambda *i: te.max(window(i, source), axis=rv), name="pool_max", tag="pool_max",
                          attrs={"schedule_rule": "meta_schedule.pool_max"})
    source = pad(data, before, after, 0.0, name="pad_temp") if padded else data
    total = te.compute(shape, lambda *i: te.sum(window(i, source), axis=rv), name="pool_sum", tag="pool_sum")

    def count(index: Sequence[Any]) -> Any:
        size: Any = arith.const(1, "int32")
        for k, a in enumerate(axes):
            start = index[a] * strides[k] - head[k]
            end = start + (kernel_[k] - 1) * dilations[k]
            if count_include_pad:
                end = te.min(end, arith.add(data.shape[a], tail[k] - 1))
                size = size * (te.floordiv(end - start, dilations[k]) + 1)
            else:
                # the first tap inside the input, and the last
                first = start + dilations[k] * te.max(te.floordiv(dilations[k] - 1 - start, dilations[k]), 0)
                end = te.min(end, arith.sub(data.shape[a], 1))
                size = size * te.max(te.floordiv(end - first, dilations[k]) + 1, 0)
        return te.max(size, 1)

    def average(*index: Any) -> Any:
        n = count(index)
        return te.div(total[index], n.astype(data.dtype) if data.dtype.startswith("float") else n)
    return te.compute(shape, average, name="pool_avg", tag=tag.ELEMWISE,
                      attrs={"schedule_rule": "meta_schedule.pool_avg"})


def _window_sizes(size: Any, out: Any) -> tuple[Any, bool]:
    """The longest adaptive window over an axis of *size* cut into *out*, and whether every
    window has that length (then no guard is needed)."""
    n, o = const_value(size), const_value(out)
    if n is None or o is None:
        return arith.add(arith.floordiv(arith.add(size, arith.sub(out, 1)), out), 1), False
    lengths = {-(-(i + 1) * n // o) - i * n // o for i in range(o)}
    return max(lengths), len(lengths) == 1


def adaptive_pool(data: Tensor, output_size: Any, pool_type: str, layout: str = "NCHW") -> Tensor:
    """Pooling into an *output_size* (rows, cols) grid: output row i covers input rows
    ``floor(i * H / rows)`` to ``ceil((i + 1) * H / rows)``, as TVM and PyTorch cut them."""
    axes = spatial_axes("adaptive_pool", data, layout)
    kind = _pool_type("adaptive_pool", pool_type)
    sizes = pair("adaptive_pool", "output_size", output_size)
    shape = list(data.shape)
    for k, a in enumerate(axes):
        shape[a] = sizes[k]
    windows = [_window_sizes(data.shape[a], sizes[k]) for k, a in enumerate(axes)]
    rv = [te.reduce_axis((0, w), name=f"rv{k}") for k, (w, _) in enumerate(windows)]

    def bounds(index: Sequence[Any], k: int) -> tuple[Any, Any]:
        a, n = axes[k], data.shape[axes[k]]
        start = te.floordiv(index[a] * n, sizes[k])
        return start, te.floordiv((index[a] + 1) * n + sizes[k] - 1, sizes[k])

    def element(index: Sequence[Any], fill: Any) -> Any:
        at, inside = list(index), []
        for k, a in enumerate(axes):
            start, end = bounds(index, k)
            at[a] = start + rv[k]
            if not windows[k][1]:
                inside.append(start + rv[k] < end)
                at[a] = te.min(at[a], arith.sub(data.shape[a], 1))
        value = data[tuple(at)]
        return te.if_then_else(te.all(*inside), value, fill) if inside else value

    if kind == "max":
        return te.compute(shape, lambda *i: te.max(element(i, te.min_value(data.dtype)), axis=rv),
                          name="adaptive_pool_max", tag="adaptive_pool_max")
    total = te.compute(shape, lambda *i: te.sum(element(i, arith.const(0, data.dtype)), axis=rv),
                       name="adaptive_pool_sum", tag="adaptive_pool_sum")

    def average(*index: Any) -> Any:
        n: Any = arith.const(1, "int32")
        for k in range(2):
            start, end = bounds(index, k)
            n = n * (end - start)
        return te.div(total[index], n.astype(data.dtype) if data.dtype.startswith("float") else n)
    return te.compute(shape, average, name="adaptive_pool_avg", tag=tag.ELEMWISE)


def global_pool(data: Tensor, pool_type: str, layout: str = "NCHW") -> Tensor:
    """Pooling of each whole H x W plane into one element (an adaptive pool to 1 x 1)."""
    return adaptive_pool(data, (1, 1), pool_type, layout)
