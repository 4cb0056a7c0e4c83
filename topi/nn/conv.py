"""The convolution of any number of spatial dimensions (TVM's ``topi.nn.conv``), in any layout
that names its batch ``N`` and channels ``C`` (and the kernel's ``O`` and ``I``): the input
padded by a ``pad_temp`` stage, then one reduction over a group's input channels and the kernel's
positions. conv1d and conv3d are this compute; so is ``group_conv2d_nhwc``.

Stage and axis names are TVM's: the output ``conv{d}d_{layout}`` (``group_`` before it for
groups), its axes ``nn, ff, yy, xx, zz`` in the layout's order, the reduction ``rc`` and
``ry, rx, rz`` over the kernel's spatial dimensions in order."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi.nn.pad import pad
from topi.nn.window import out_extent
from topi.utils import const_value, get_pad_tuple_generic, pair


def _positions(layout: str, batch: str, channel: str, ndim: int, op: str, what: str) -> list[int]:
    """Where *layout*'s batch (or output) letter, channel letter and spatial letters are, in
    that order.

    :raises ValueError: for a layout of another length or without exactly one of each.
    """
    if len(layout) != ndim or layout.count(batch) != 1 or layout.count(channel) != 1:
        raise ValueError(f"topi.nn.{op}: {what} layout {layout!r} must name {ndim} dimensions, one '{batch}' "
                         f"and one '{channel}'")
    return [layout.index(batch), layout.index(channel)] + [k for k, c in enumerate(layout) if c not in (batch, channel)]


def conv(inp: Tensor, filt: Tensor, stride: Any, padding: Any, dilation: Any, groups: int, data_layout: str,
         kernel_layout: str = "", out_dtype: str | None = None) -> Tensor:
    """The convolution of *inp* (layout *data_layout*, ``N`` batch, ``C`` channels, the other
    letters spatial) by *filt* (layout *kernel_layout*, ``O`` output and ``I`` input channels;
    by default ``OI...`` when the channels come before the spatial dimensions, else ``...IO``).
    *stride* and *dilation* are one int or one per spatial dimension; *padding* an int, one per
    dimension (both sides), two per dimension (all the befores, then the afters), ``"SAME"`` or
    ``"VALID"``.

    :raises ValueError: for layouts that do not match the tensors, channels the groups do not
        divide, or a kernel larger than the padded input.
    """
    for what, t in (("inp", inp), ("filt", filt)):
        if not isinstance(t, Tensor):
            raise TypeError(f"topi.nn.conv: {what} must be a tensor, got {t!r}")
    if not isinstance(data_layout, str) or not isinstance(kernel_layout, str):
        raise TypeError(f"topi.nn.conv: the layouts are strings ('NCW', 'OIW' ...), got {data_layout!r} and "
                        f"{kernel_layout!r}")
    grouped = "group_" if isinstance(groups, int) and groups > 1 else ""
    name = f"{grouped}conv{len(inp.shape) - 2}d_{data_layout.lower()}"
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"topi.nn.{name}: groups must be a positive int, got {groups!r}")
    ndim = len(inp.shape)
    if ndim < 3 or len(filt.shape) != ndim:
        raise ValueError(f"topi.nn.{name}: the input and the kernel have one batch (or output channel), one channel "
                         f"and the same spatial dimensions; got shapes {list(map(str, inp.shape))} and "
                         f"{list(map(str, filt.shape))}")
    dims = ndim - 2
    data_at = _positions(data_layout, "N", "C", ndim, name, "data")
    if not kernel_layout:
        first = data_layout.index("C") < min(data_at[2:])
        kernel_layout = "OI" + "S" * dims if first else "S" * dims + "IO"
    kernel_at = _positions(kernel_layout, "O", "I", ndim, name, "kernel")
    strides, dilations = pair(name, "stride", stride, dims), pair(name, "dilation", dilation, dims)
    batch, channels, *spatial = (inp.shape[k] for k in data_at)
    filters, per_group, *kernel = (filt.shape[k] for k in kernel_at)
    c, f, g = const_value(channels), const_value(filters), const_value(per_group)
    if c is not None and f is not None and (c % groups or f % groups):
        raise ValueError(f"topi.nn.{name}: {groups} groups must divide the input channels ({c}) and the output "
                         f"channels ({f})")
    if c is not None and g is not None and g * groups != c:
        raise ValueError(f"topi.nn.{name}: the kernel reads {g} channels per group, but the input has {c} channels "
                         f"in {groups} groups")
    spans = [(const_value(k) - 1) * d + 1 if const_value(k) is not None else k for k, d in zip(kernel, dilations)]
    before, after = get_pad_tuple_generic(padding, spans, name)
    out_spatial = [out_extent(name, size, k, s, d, b, a)
                   for size, k, s, d, b, a in zip(spatial, kernel, strides, dilations, before, after)]
    pads_before, pads_after = [0] * ndim, [0] * ndim
    for k, b, a in zip(data_at[2:], before, after):
        pads_before[k], pads_after[k] = b, a
    padded = pad(inp, pads_before, pads_after, name="pad_temp")
    rc = te.reduce_axis((0, per_group), name="rc")
    rs = [te.reduce_axis((0, k), name=f"r{n}") for n, k in zip("yxz", kernel)]
    # The reduction in the data layout's order of channels and spatial dimensions.
    order = sorted(range(dims + 1), key=lambda k: data_at[k + 1])
    out_per_group = arith.floordiv(filters, groups)

    def element(*index: Any) -> Any:
        nn, ff, *at = (index[k] for k in data_at)
        channel = rc if groups == 1 else te.floordiv(ff, out_per_group) * per_group + rc
        read = [None] * ndim
        for k, value in zip(data_at, [nn, channel, *(i * s + r * d for i, s, r, d in zip(at, strides, rs, dilations))]):
            read[k] = value
        weight = [None] * ndim
        for k, value in zip(kernel_at, [ff, rc, *rs]):
            weight[k] = value
        return te.sum(padded[tuple(read)].astype(out_dtype) * filt[tuple(weight)].astype(out_dtype),
                      axis=[[rc, *rs][k] for k in order])

    out_dtype = out_dtype or inp.dtype
    shape: list[Any] = [None] * ndim
    for k, extent in zip(data_at, [batch, filters, *out_spatial]):
        shape[k] = extent
    names = [None] * ndim
    for k, n in zip(data_at, ["nn", "ff", "yy", "xx", "zz"]):
        names[k] = n
    return te.compute(shape, element, name=name, tag=name, varargs_names=names)

