"""The correlation layer of optical flow networks (TVM's ``topi.nn.correlation_nchw``, FlowNet's):
for each position of the first image and each displacement within ``max_displacement``
(stepped by ``stride2``), the mean over channels and a ``kernel_size`` window of the product
(or absolute difference) of the two images' values."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi.nn.pad import pad
from topi.transform.shape import tensor
from topi.utils import get_const_tuple


def correlation_nchw(data1: Tensor, data2: Tensor, kernel_size: int, max_displacement: int, stride1: int,
                     stride2: int, padding: Any, is_multiply: bool) -> Tensor:
    """Output ``(n, (2 * (max_displacement // stride2) + 1) ** 2, oh, ow)``; *padding* is an int,
    (rows, cols) or (top, left, bottom, right).

    :raises ValueError: for images of two shapes, an even or non-positive kernel, or another padding.
    """
    data1, data2 = tensor("nn.correlation_nchw", data1), tensor("nn.correlation_nchw", data2)
    shape = get_const_tuple(data1.shape)
    if get_const_tuple(data2.shape) != shape or len(shape) != 4:
        raise ValueError(f"topi.nn.correlation_nchw: the two images are NCHW of one shape, got "
                         f"{list(map(str, data1.shape))} and {list(map(str, data2.shape))}")
    if isinstance(kernel_size, bool) or not isinstance(kernel_size, int) or kernel_size < 1 or kernel_size % 2 == 0:
        raise ValueError(f"topi.nn.correlation_nchw: kernel_size must be a positive odd int, got {kernel_size!r}")
    if isinstance(padding, int) and not isinstance(padding, bool):
        top = bottom = left = right = padding
    elif isinstance(padding, (tuple, list)) and len(padding) == 2:
        top = bottom = padding[0]
        left = right = padding[1]
    elif isinstance(padding, (tuple, list)) and len(padding) == 4:
        top, left, bottom, right = padding
    else:
        raise ValueError(f"topi.nn.correlation_nchw: padding is an int, (rows, cols) or (top, left, bottom, right), "
                         f"got {padding!r}")
    padded1 = pad(data1, [0, 0, top, left], [0, 0, bottom, right])
    padded2 = pad(data2, [0, 0, top, left], [0, 0, bottom, right])
    batch, channels, height, width = shape
    radius = (kernel_size - 1) // 2
    border = max_displacement + radius
    steps = max_displacement // stride2
    side = 2 * steps + 1
    out_h = (height + top + bottom - 2 * border + stride1 - 1) // stride1
    out_w = (width + left + right - 2 * border + stride1 - 1) // stride1
    rc = te.reduce_axis((0, channels), name="rc")
    ry, rx = te.reduce_axis((0, kernel_size), name="ry"), te.reduce_axis((0, kernel_size), name="rx")

    def element(n: Any, q: Any, i: Any, j: Any) -> Any:
        y1, x1 = i * stride1 + max_displacement, j * stride1 + max_displacement
        y2, x2 = y1 + (q // side - steps) * stride2, x1 + (q % side - steps) * stride2
        a, b = padded1[n, rc, y1 + ry, x1 + rx], padded2[n, rc, y2 + ry, x2 + rx]
        return te.sum(a * b if is_multiply else te.abs(a - b), axis=[rc, ry, rx])
    correlation = te.compute((batch, side * side, out_h, out_w), element, tag="correlation_nchw")
    return correlation / float(kernel_size * kernel_size * channels)
