"""TVM's ``topi.x86.depthwise_conv2d``: the depthwise convolution in the blocked NCHWc layout,
its CPU schedule, and the fallback tiles of its tuned template."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi.nn.pad import pad
from topi.nn.window import Window
from topi.traverse import new_schedule, traverse_inline
from topi.utils import const_value
from topi.x86.fallback import fallback_schedule as _fallback_schedule

_OP = "depthwise_conv2d_NCHWc"


def _check(data: Any, kernel: Any) -> None:
    for what, t, dims in (("data", data, 5), ("kernel", kernel, 6)):
        if not isinstance(t, Tensor):
            raise TypeError(f"topi.x86.{_OP}: {what} must be a tensor, got {t!r}")
        if len(t.shape) != dims:
            raise ValueError(f"topi.x86.{_OP}: {what} must be {dims}-dimensional, got shape "
                             f"{list(map(str, t.shape))}")


def depthwise_conv2d_NCHWc(data: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any,  # noqa: N802
                           layout: str, out_layout: str, out_dtype: str | None = None) -> Tensor:
    """Data ``(n, c // cb, h, w, cb)``, kernel ``(out // ob, 1, kh, kw, 1, ob)``, output
    ``(n, out // ob, oh, ow, ob)``; output channel o reads input channel ``o // (out // c)``.
    *layout* and *out_layout* (``"NCHW8c"``...) are TVM's; the shapes decide."""
    _check(data, kernel)
    out_dtype = out_dtype or data.dtype
    batch, _, rows, cols, in_block = data.shape
    out_chunks, _, kh, kw, _, out_block = kernel.shape
    channels = const_value(data.shape[1] * in_block) if const_value(in_block) is not None else None
    outputs = const_value(out_chunks * out_block) if const_value(out_block) is not None else None
    if channels is None or outputs is None or outputs % channels:
        raise ValueError(f"topi.x86.{_OP}: the output channels ({outputs}) must be a constant multiple of the "
                         f"input's ({channels})")
    multiplier = outputs // channels
    w = Window(_OP, rows, cols, (kh, kw), strides, padding, dilation)
    padded = pad(data, [0, 0, w.top, w.left, 0], [0, 0, w.bottom, w.right, 0], name="PaddedInput")
    di, dj = te.reduce_axis((0, kh), name="kh"), te.reduce_axis((0, kw), name="kw")

    def element(b: Any, oco: Any, i: Any, j: Any, oci: Any) -> Any:
        source = te.floordiv(oco * out_block + oci, multiplier)
        value = padded[b, te.floordiv(source, in_block), w.row(i, di), w.col(j, dj), te.floormod(source, in_block)]
        return te.sum(value.astype(out_dtype) * kernel[oco, 0, di, dj, 0, oci].astype(out_dtype), axis=[di, dj])
    return te.compute((batch, out_chunks, w.out_h, w.out_w, out_block), element, name="DepthwiseConv2d",
                      tag=_OP)


def schedule_depthwise_conv2d_NCHWc(outs: Any) -> te.Schedule:  # noqa: N802
    """The padding once at the root; the output's batch, channel blocks and rows in parallel,
    the convolution per row of them, its channel block innermost as a vector."""
    s, tensors = new_schedule(f"x86.schedule_{_OP}", outs)
    out = tensors[0]

    def visit(op: Any) -> None:
        if op.tag != _OP:
            return
        conv = op.output(0)
        padded = op.input_tensors[0]
        if "pad" in padded.op.tag:
            s[padded].parallel(s[padded].fuse(*s[padded].op.axis[:2]))
        b, oco, oh, ow, oci = s[out].op.axis
        row = s[out].fuse(b, oco, oh)
        s[out].parallel(row)
        if conv.op is not out.op:
            s[out].vectorize(oci)
            s[conv].compute_at(s[out], row)
        cw, ci = s[conv].op.axis[3:]
        s[conv].reorder(cw, *s[conv].op.reduce_axis, ci)
        s[conv].vectorize(ci)

    traverse_inline(s, out.op, visit)
    return s


__all__ = ["_fallback_schedule", "depthwise_conv2d_NCHWc", "schedule_depthwise_conv2d_NCHWc"]
