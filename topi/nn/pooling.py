"""Pooling (TVM's ``topi.nn.pool1d``, ``pool2d``, ``pool3d``, ``adaptive_pool``,
``adaptive_pool1d``, ``adaptive_pool3d`` and ``global_pool``) over the spatial axes (``W``;
``H``, ``W``; ``D``, ``H``, ``W``) of a layout such as ``NCHW``, ``NHWC`` or ``NCHW16c``: max,
or average (``pool_sum`` divided by the window's size, padding counted or not), with TVM's
stage names and tags."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.base.errors import ScheduleError
from schedule.ir import arith
from topi import tag
from topi.nn.pad import pad
from topi.utils import const_value, pair

#: The spatial axes a pool of each rank slides over, outermost first.
SPATIAL = {1: "W", 2: "HW", 3: "DHW"}
_PADDING_NAMES = {1: "(left, right)", 2: "(top, left, bottom, right)", 3: "(front, top, left, back, bottom, right)"}


def spatial_axes(op: str, data: Any, layout: str, rank: int = 2) -> tuple[int, ...]:
    """The positions in *layout* of the *rank* spatial axes. The layout names each axis of
    *data* once: an upper-case letter for a whole axis, a number and a lower-case letter for a
    block of one (``NCHW16c``).

    :raises ScheduleError: ("Unsupported layout") when a spatial axis is split into blocks.
    :raises ValueError: for a layout that does not describe *data*.
    """
    if not isinstance(data, Tensor):
        raise TypeError(f"topi.nn.{op}: takes a tensor, got {data!r}")
    tokens = re.findall(r"\d*[A-Za-z]", layout) if isinstance(layout, str) else []
    letters = [t[-1] for t in tokens]
    wanted = SPATIAL[rank]
    split = [a for a in wanted if a.lower() in letters]
    if split:
        raise ScheduleError(f"topi.nn.{op}: Unsupported layout {layout}: spatial axis {split[0]} is split into "
                            f"blocks; pool over whole {', '.join(wanted)} axes")
    well_formed = (isinstance(layout, str) and "".join(tokens) == layout and len(tokens) == len(data.shape)
                   and all(t.isupper() or (t[:-1].isdigit() and t[-1].islower()) for t in tokens)
                   and len(set(letters)) == len(letters) and all(a in letters for a in wanted))
    if not well_formed:
        example = {1: "NCW or NWC", 2: "NCHW or NHWC", 3: "NCDHW or NDHWC"}[rank]
        raise ValueError(f"topi.nn.{op}: layout {layout!r} must name each of the {len(data.shape)} axes once, "
                         f"{' and '.join(wanted)} among them (as {example})")
    return tuple(letters.index(a) for a in wanted)


def pool_type(op: str, kind: Any) -> str:
    """*kind* if it is ``"max"`` or ``"avg"``."""
    if kind not in ("max", "avg"):
        raise ValueError(f"topi.nn.{op}: pool_type must be 'max' or 'avg', got {kind!r}")
    return kind


def padding_pairs(op: str, padding: Any, rank: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """*padding* (every spatial axis's before, then every one's after) as (before, after)."""
    if not isinstance(padding, (list, tuple)) or len(padding) != 2 * rank:
        raise ValueError(f"topi.nn.{op}: padding must be {_PADDING_NAMES[rank]}, got {padding!r}")
    return pair(op, "padding", padding[:rank], rank), pair(op, "padding", padding[rank:], rank)


def window_count(index: Sequence[Any], data: Tensor, axes: Sequence[int], kernel: Sequence[int],
                 strides: Sequence[int], dilations: Sequence[int], head: Sequence[int], tail: Sequence[int],
                 count_include_pad: bool) -> Any:
    """The taps of the window at output *index*: those inside the padded input (clipped at its
    end), or those inside the input alone; at least 1."""
    size: Any = arith.const(1, "int32")
    for k, a in enumerate(axes):
        start = index[a] * strides[k] - head[k]
        end = start + (kernel[k] - 1) * dilations[k]
        if count_include_pad:
            end = te.min(end, arith.add(data.shape[a], tail[k] - 1))
            size = size * (te.floordiv(end - start, dilations[k]) + 1)
        else:
            # the first tap inside the input, and the last
            first = start + dilations[k] * te.max(te.floordiv(dilations[k] - 1 - start, dilations[k]), 0)
            end = te.min(end, arith.sub(data.shape[a], 1))
            size = size * te.max(te.floordiv(end - first, dilations[k]) + 1, 0)
    return te.max(size, 1)


def _pool(op: str, rank: int, data: Tensor, kernel: Any, stride: Any, dilation: Any, padding: Any, kind: str,
          ceil_mode: bool, layout: str, count_include_pad: bool) -> Tensor:
    axes = spatial_axes(op, data, layout, rank)
    kind = pool_type(op, kind)
    kernel_ = pair(op, "kernel", kernel, rank)
    strides, dilations = pair(op, "stride", stride, rank), pair(op, "dilation", dilation, rank)
    head, tail = padding_pairs(op, padding, rank)
    before, after = [0] * len(data.shape), [0] * len(data.shape)
    shape = list(data.shape)
    for k, a in enumerate(axes):
        before[a], after[a] = head[k], tail[k] + (strides[k] - 1 if ceil_mode else 0)
        span = (kernel_[k] - 1) * dilations[k] + 1
        shape[a] = arith.add(arith.floordiv(arith.add(arith.sub(data.shape[a], span), before[a] + after[a]),
                                            strides[k]), 1)
        if const_value(shape[a]) is not None and const_value(shape[a]) < 1:
            raise ValueError(f"topi.nn.{op}: a window spanning {span} does not fit axis {layout[a]} of "
                             f"{data.shape[a]} padded by {before[a]} + {after[a]}")
    padded = any(before) or any(after)
    rv = [te.reduce_axis((0, kernel_[k]), name=f"rv{k}") for k in range(rank)]

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

    def average(*index: Any) -> Any:
        n = window_count(index, data, axes, kernel_, strides, dilations, head, tail, count_include_pad)
        return te.div(total[index], n.astype(data.dtype) if data.dtype.startswith("float") else n)
    return te.compute(shape, average, name="pool_avg", tag=tag.ELEMWISE,
                      attrs={"schedule_rule": "meta_schedule.pool_avg"})


def pool1d(data: Tensor, kernel: Any, stride: Any, dilation: Any, padding: Sequence[int], pool_type: str,
           ceil_mode: bool = False, layout: str = "NCW", count_include_pad: bool = True) -> Tensor:
    """:func:`pool2d` over the ``W`` axis; *padding* is (left, right)."""
    return _pool("pool1d", 1, data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout,
                 count_include_pad)


def pool2d(data: Tensor, kernel: Any, stride: Any, dilation: Any, padding: Sequence[int], pool_type: str,
           ceil_mode: bool = False, layout: str = "NCHW", count_include_pad: bool = True) -> Tensor:
    """Max or average pooling with a *kernel* window, *padding* as (top, left, bottom, right).
    *ceil_mode* adds the last, partial window; *count_include_pad* divides an average by the
    window's size with the padding (clipped to the padded input) rather than without."""
    return _pool("pool2d", 2, data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout,
                 count_include_pad)


def pool3d(data: Tensor, kernel: Any, stride: Any, dilation: Any, padding: Sequence[int], pool_type: str,
           ceil_mode: bool = False, layout: str = "NCDHW", count_include_pad: bool = True) -> Tensor:
    """:func:`pool2d` over the ``D``, ``H`` and ``W`` axes; *padding* is (front, top, left,
    back, bottom, right)."""
    return _pool("pool3d", 3, data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout,
                 count_include_pad)


def _window_sizes(size: Any, out: Any) -> tuple[Any, bool]:
    """The longest adaptive window over an axis of *size* cut into *out*, and whether every
    window has that length (then no guard is needed)."""
    n, o = const_value(size), const_value(out)
    if n is None or o is None:
        return arith.add(arith.floordiv(arith.add(size, arith.sub(out, 1)), out), 1), False
    lengths = {-(-(i + 1) * n // o) - i * n // o for i in range(o)}
    return max(lengths), len(lengths) == 1


def _adaptive(op: str, rank: int, data: Tensor, output_size: Any, kind: str, layout: str) -> Tensor:
    axes = spatial_axes(op, data, layout, rank)
    kind = pool_type(op, kind)
    sizes = pair(op, "output_size", output_size, rank)
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
        for k in range(rank):
            start, end = bounds(index, k)
            n = n * (end - start)
        return te.div(total[index], n.astype(data.dtype) if data.dtype.startswith("float") else n)
    return te.compute(shape, average, name="adaptive_pool_avg", tag=tag.ELEMWISE)


def adaptive_pool(data: Tensor, output_size: Any, pool_type: str, layout: str = "NCHW") -> Tensor:
    """Pooling into an *output_size* (rows, cols) grid: output row i covers input rows
    ``floor(i * H / rows)`` to ``ceil((i + 1) * H / rows)``, as TVM and PyTorch cut them."""
    return _adaptive("adaptive_pool", 2, data, output_size, pool_type, layout)


def adaptive_pool1d(data: Tensor, output_size: Any, pool_type: str, layout: str = "NCW") -> Tensor:
    """:func:`adaptive_pool` over the ``W`` axis."""
    return _adaptive("adaptive_pool1d", 1, data, output_size, pool_type, layout)


def adaptive_pool3d(data: Tensor, output_size: Any, pool_type: str, layout: str = "NCDHW") -> Tensor:
    """:func:`adaptive_pool` over the ``D``, ``H`` and ``W`` axes."""
    return _adaptive("adaptive_pool3d", 3, data, output_size, pool_type, layout)


def global_pool(data: Tensor, pool_type: str, layout: str = "NCHW") -> Tensor:
    """Pooling of each whole H x W plane into one element (an adaptive pool to 1 x 1)."""
    return adaptive_pool(data, (1, 1), pool_type, layout)
