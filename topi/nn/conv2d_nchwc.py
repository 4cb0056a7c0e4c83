"""The convolution in the blocked ``NCHW[x]c`` layout (TVM's ``topi.nn.conv2d_NCHWc``, the
layout its x86 kernels compute in): data ``(n, C // ic_bn, h, w, ic_bn)``, kernel ``(F //
oc_bn, C // groups // ic_bn, kh, kw, ic_bn, oc_bn)``, output ``(n, F // oc_bn, oh, ow, oc_bn)``;
the groups are read from the shapes. The input is padded by a ``data_pad`` stage only where
the padding is not zero, as TVM pads it."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi.nn.pad import pad
from topi.nn.window import Window
from topi.utils import const_value

_OP = "conv2d_NCHWc"


def conv2d_NCHWc(data: Tensor, kernel: Tensor, stride: Any, padding: Any, dilation: Any, layout: str,  # noqa: N802
                 out_layout: str, out_dtype: str = "float32") -> Tensor:
    """See the module; *layout* and *out_layout* (``"NCHW8c"`` ...) are TVM's, the shapes decide.

    :raises ValueError: for tensors of other ranks, blocks that do not match, or groups that do
        not divide the channels.
    """
    for what, t, dims in (("data", data, 5), ("kernel", kernel, 6)):
        if not isinstance(t, Tensor):
            raise TypeError(f"topi.nn.{_OP}: {what} must be a tensor, got {t!r}")
        if len(t.shape) != dims:
            raise ValueError(f"topi.nn.{_OP}: {what} must be {dims}-dimensional, got shape {list(map(str, t.shape))}")
    n, ic_chunk, rows, cols, ic_bn = (const_value(d) for d in data.shape)
    oc_chunk, chunk_per_group, kh, kw, kernel_bn, oc_bn = (const_value(d) for d in kernel.shape)
    if None in (ic_chunk, ic_bn, oc_chunk, chunk_per_group, kernel_bn, oc_bn) or kernel_bn != ic_bn or \
            ic_chunk % chunk_per_group:
        raise ValueError(f"topi.nn.{_OP}: the kernel's input block ({kernel.shape[4]}) must be the data's "
                         f"({data.shape[4]}) and its input chunks ({kernel.shape[1]}) divide the data's "
                         f"({data.shape[1]}), all constants")
    groups = ic_chunk // chunk_per_group
    if oc_chunk % groups:
        raise ValueError(f"topi.nn.{_OP}: the {groups} groups the shapes give must divide the {oc_chunk} output "
                         f"chunks")
    w = Window(_OP, data.shape[2], data.shape[3], (kh, kw), stride, padding, dilation)
    padded = pad(data, [0, 0, w.top, w.left, 0], [0, 0, w.bottom, w.right, 0], name="data_pad") \
        if (w.top, w.left, w.bottom, w.right) != (0, 0, 0, 0) else data
    ic = te.reduce_axis((0, chunk_per_group * ic_bn), name="ic")
    ry, rx = te.reduce_axis((0, kh), name="kh"), te.reduce_axis((0, kw), name="kw")
    out_per_group = oc_chunk // groups

    def element(b: Any, occ: Any, oh: Any, ow: Any, oc_block: Any) -> Any:
        chunk = te.floordiv(ic, ic_bn) if groups == 1 else \
            te.floordiv(occ, out_per_group) * chunk_per_group + te.floordiv(ic, ic_bn)
        value = padded[b, chunk, w.row(oh, ry), w.col(ow, rx), te.floormod(ic, ic_bn)]
        weight = kernel[occ, te.floordiv(ic, ic_bn), ry, rx, te.floormod(ic, ic_bn), oc_block]
        return te.sum(value.astype(out_dtype) * weight.astype(out_dtype), axis=[ic, ry, rx])
    return te.compute((data.shape[0], oc_chunk, w.out_h, w.out_w, oc_bn), element, name=_OP, tag=_OP)
