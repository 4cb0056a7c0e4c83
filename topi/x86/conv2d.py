"""TVM's x86 schedules of the convolutions: output channels and columns tiled, the tile
accumulated in a cache stage whose column loop is vectorized under the reduction, the batch,
channel tiles and rows in parallel, the padding computed once at the root; an injective
epilogue (bias, relu) computed at the tile."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.traverse import new_schedule, traverse_inline
from topi.utils import const_value
from topi.x86.injective import parallel_outer, schedule_injective_from_existing


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


def schedule_conv_tile(s: te.Schedule, conv: te.Tensor, out: te.Tensor) -> None:
    """Tile NCHW *conv* (written to *out*, itself or its injective epilogue) as the module says:
    16 output channels by a row's columns accumulated in a cache stage, the padded input
    computed once at the root (a guard on every load of an inlined padding costs 10x or more)."""
    padded = conv.op.input_tensors[0]
    if "pad" in padded.op.tag:
        pn, pc, _, px = s[padded].op.axis
        s[padded].parallel(s[padded].fuse(pn, pc))
        s[padded].vectorize(s[padded].split(px, factor=8)[1])
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
    for t in tensors:
        if not s[t.op].relations:
            schedule_injective_from_existing(s, t)
    return s


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
    for t in tensors:
        if not s[t.op].relations:
            schedule_injective_from_existing(s, t)
    return s


schedule_conv2d_hwcn = schedule_conv2d_nhwc
