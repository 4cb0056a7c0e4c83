"""YOLO's ``reorg`` (TVM's ``topi.vision.reorg``), as Darknet defines it: the input's elements,
read as a ``(batch, C / s^2, H * s, W * s)`` array, gathered into ``(batch, C * s^2, H / s, W /
s)`` with each output channel ``k`` taking the positions ``(y * s + o // s, x * s + o % s)`` of
channel ``k % (C / s^2)``, ``o = k // (C / s^2)``."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi.transform.shape import reshape, tensor
from topi.utils import get_const_int


def reorg(data: Tensor, stride: int) -> Tensor:
    """See the module; *data* NCHW of constant shape, its channels a multiple of ``stride**2``.

    :raises ValueError: for a stride that does not divide the channels, rows and columns.
    """
    data = tensor("vision.reorg", data)
    if len(data.shape) != 4:
        raise ValueError(f"topi.vision.reorg: takes an NCHW tensor, got shape {list(map(str, data.shape))}")
    n, c, h, w = (get_const_int(d) for d in data.shape)
    if isinstance(stride, bool) or not isinstance(stride, int) or stride < 1 or c % (stride * stride) \
            or h % stride or w % stride:
        raise ValueError(f"topi.vision.reorg: stride must be a positive int whose square divides the {c} channels "
                         f"and which divides the {h} rows and {w} columns, got {stride!r}")
    s, per = stride, c // (stride * stride)

    def element(b: Any, k: Any, j: Any, i: Any) -> Any:
        offset = k // per
        flat = i * s + offset % s + w * s * (j * s + offset // s + h * s * (k % per + per * b))
        return data[flat // (c * h * w), flat // (h * w) % c, flat // w % h, flat % w]
    out = te.compute((n, c, h, w), element, name="tensor", tag="reorg_output")
    return reshape(out, (n, c * s * s, h // s, w // s))
