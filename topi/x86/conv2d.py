"""TVM's x86 schedules of the convolutions: output channels and columns tiled, the tile
accumulated in a cache stage, the padding computed once at the root; an injective epilogue
(bias, relu) computed at the tile.

A plain conv2d whose output channels come in vectors (16 or 8) and whose shape is known
vectorizes the channels, as TVM's NCHWc kernels do: each block of output channels copies its
filters channel-innermost (a cache stage stored permuted) and accumulates a row's columns in
registers, one vector of channels per column. The others (grouped, depthwise, symbolic shapes)
vectorize the columns under the reduction, the batch, channel tiles and rows in parallel."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.traverse import new_schedule, traverse_inline
from topi.utils import const_value
from topi.x86.injective import parallel_outer, schedule_remaining_outputs


def tile_factor(extent: Any, candidates: tuple[int, ...]) -> int:
    """The largest of *candidates* that divides a constant *extent* (the first for a symbolic
    one, which then gets a tail)."""
    n = const_value(extent)
    if n is None:
        return candidates[0]
    return next((c for c in candidates if n % c == 0), 1)


def _column_tile(width: Any) -> int:
    """A row of up to 16 columns whole, else 16, 8 or 4 that divide it, else 8 (with a tail)."""
    w = const_value(width)
    if w is not None and w <= 16:
        return w
    return next((c for c in (16, 8, 4) if w is not None and w % c == 0), 8)


def _channel_vector(conv: te.Tensor) -> int | None:
    """The output channels per vector of a plain conv2d of known shape, if they come in vectors."""
    dims = (*conv.shape, *conv.op.input_tensors[1].shape)
    if conv.op.tag != "conv2d_nchw" or any(const_value(d) is None for d in dims):
        return None
    return next((v for v in (16, 8) if const_value(conv.shape[1]) % v == 0), None)


def _pad_at_root(s: te.Schedule, conv: te.Tensor) -> None:
    """The padded input computed once at the root (a guard on every load of an inlined
    padding costs 10x or more)."""
    padded = conv.op.input_tensors[0]
    if "pad" in padded.op.tag:
        pn, pc, _, px = s[padded].op.axis
        s[padded].parallel(s[padded].fuse(pn, pc))
        s[padded].vectorize(s[padded].split(px, factor=8)[1])


def schedule_conv_tile(s: te.Schedule, conv: te.Tensor, out: te.Tensor) -> None:
    """Tile NCHW *conv* (written to *out*, itself or its injective epilogue) as the module says."""
    _pad_at_root(s, conv)
    vector = _channel_vector(conv)
    if vector is not None:
        _channel_tile(s, conv, out, vector)
        return
    acc = s.cache_write(conv, "global") if conv == out else conv
    n, f, y, x = s[out].op.axis
    fo, fi = s[out].split(f, factor=tile_factor(out.shape[1], (16, 8, 4, 2)))
    xo, xi = s[out].split(x, factor=_column_tile(out.shape[3]))
    s[out].reorder(n, fo, y, xo, fi, xi)
    s[out].parallel(s[out].fuse(n, fo, y))
    s[out].vectorize(xi)
    s[acc].compute_at(s[out], xo)
    _, cf, _, cx = s[acc].op.axis
    s[acc].reorder(*s[acc].op.reduce_axis, cf, cx)
    s[acc].unroll(cf)
    s[acc].vectorize(cx)


def _channel_tile(s: te.Schedule, conv: te.Tensor, out: te.Tensor, vector: int) -> None:
    """*vector* output channels by up to 14 columns (a register each), the channel blocks in
    parallel, each block's filters copied channel-innermost before its rows."""
    weights = s.cache_read(conv.op.input_tensors[1], "global", [conv])
    acc = s.cache_write(conv, "global") if conv == out else conv
    s[acc].transform_layout(lambda n, f, y, x: [n, y, x, f])
    n, f, y, x = s[out].op.axis
    fo, fi = s[out].split(f, factor=vector)
    width = const_value(out.shape[3])
    xo, xi = s[out].split(x, factor=next((c for c in (14, 8, 7, 12, 10, 6, 4) if width % c == 0), min(width, 8)))
    s[out].reorder(n, fo, y, xo, xi, fi)
    block = s[out].fuse(n, fo)
    s[out].parallel(block)
    packed = s[weights].transform_layout(lambda f, c, ry, rx: [c, ry, rx, f])
    s[weights].compute_at(s[out], block)
    s[weights].vectorize(packed[-1])
    s[acc].compute_at(s[out], xo)
    an, af, ay, ax = s[acc].op.axis
    s[acc].reorder(an, ay, *s[acc].op.reduce_axis, ax, af)
    s[acc].unroll(ax)
    s[acc].vectorize(af)


def schedule_conv2d_nchw(outs: Any) -> te.Schedule:
    """conv2d_nchw, group_conv2d_nchw and depthwise_conv2d_nchw (with their epilogues)."""
    s, tensors = new_schedule("x86.schedule_conv2d_nchw", outs)
    out = tensors[0]

    def visit(op: Any) -> None:
        if op.tag in ("conv2d_nchw", "group_conv2d_nchw", "depthwise_conv2d_nchw") and not s[op].relations:
            schedule_conv_tile(s, op.output(0), out if len(out.shape) == 4 and not s[out.op].relations
                               else op.output(0))
        elif op.tag == "conv2d_transpose_nchw" and not s[op].relations:
            parallel_outer(s, op.output(0))
    traverse_inline(s, out.op, visit)
    return schedule_remaining_outputs(s, tensors)


schedule_group_conv2d_nchw = schedule_conv2d_nchw
schedule_depthwise_conv2d_nchw = schedule_conv2d_nchw
schedule_conv2d_transpose_nchw = schedule_conv2d_nchw


def schedule_conv2d_nhwc(outs: Any) -> te.Schedule:
    """conv2d_nhwc (and conv2d_hwcn): the padding inlined, the leading axes in parallel; an
    epilogue as injective."""
    s, tensors = new_schedule("x86.schedule_conv2d_nhwc", outs)

    def visit(op: Any) -> None:
        if op.tag in ("conv2d_nhwc", "conv2d_hwcn") and not s[op].relations:
            parallel_outer(s, op.output(0))
    traverse_inline(s, tensors[0].op, visit)
    return schedule_remaining_outputs(s, tensors)


schedule_conv2d_hwcn = schedule_conv2d_nhwc
