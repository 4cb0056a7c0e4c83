"""NumPy references for the deformable convolution and the correlation layer (TVM's
``topi.testing.deformable_conv2d_nchw_python``, ``_nhwc_python`` and
``correlation_nchw_python``), element by element in float64."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from topi.utils import get_pad_tuple, pair


def _bilinear(image: np.ndarray, y: float, x: float) -> float:
    """*image* (h, w) at (y, x): the four neighbours, those outside counted as 0; 0 outside."""
    h, w = image.shape
    if y < 0 or x < 0 or y >= h or x >= w:
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    total = 0.0
    for yy, fy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, fx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += fy * fx * image[yy, xx]
    return total


def deformable_conv2d_nchw_python(a_np: np.ndarray, offset_np: np.ndarray, w_np: np.ndarray, stride: Any,
                                  padding: Any, dilation: Any, deformable_groups: int, groups: int) -> np.ndarray:
    """Each tap read at its position plus its offset (dy, dx), bilinearly, then summed with the kernel."""
    batch, channels, _, _ = a_np.shape
    filters, _, kh, kw = w_np.shape
    _, _, out_h, out_w = offset_np.shape
    sh, sw = pair("deformable_conv2d", "stride", stride)
    dh, dw = pair("deformable_conv2d", "dilation", dilation)
    top, left, _, _ = get_pad_tuple(padding, ((kh - 1) * dh + 1, (kw - 1) * dw + 1))
    per_group = channels // deformable_groups
    src = a_np.astype("float64")
    taps = np.zeros((batch, channels, kh, kw, out_h, out_w))
    for n, c, ky, kx, y, x in itertools.product(range(batch), range(channels), range(kh), range(kw), range(out_h),
                                               range(out_w)):
        first = c // per_group * kh * kw * 2 + (ky * kw + kx) * 2
        yy = y * sh - top + ky * dh + float(offset_np[n, first, y, x])
        xx = x * sw - left + kx * dw + float(offset_np[n, first + 1, y, x])
        taps[n, c, ky, kx, y, x] = _bilinear(src[n, c], yy, xx)
    return np.einsum("ncklyx,fckl->nfyx", taps, w_np.astype("float64")).astype(a_np.dtype)


def deformable_conv2d_nhwc_python(a_np: np.ndarray, offset_np: np.ndarray, w_np: np.ndarray, stride: Any,
                                  padding: Any, dilation: Any, deformable_groups: int, groups: int) -> np.ndarray:
    """:func:`deformable_conv2d_nchw_python` in NHWC (kernel HWIO, offsets last)."""
    out = deformable_conv2d_nchw_python(a_np.transpose(0, 3, 1, 2), offset_np.transpose(0, 3, 1, 2),
                                        w_np.transpose(3, 2, 0, 1), stride, padding, dilation, deformable_groups,
                                        groups)
    return out.transpose(0, 2, 3, 1)


def correlation_nchw_python(data1: np.ndarray, data2: np.ndarray, kernel_size: int, max_displacement: int,
                            stride1: int, stride2: int, padding: Any, is_multiply: bool) -> np.ndarray:
    """FlowNet's correlation of two NCHW images (see ``topi.nn.correlation_nchw``)."""
    top, left, bottom, right = (padding,) * 4 if isinstance(padding, int) else \
        (padding[0], padding[1], padding[0], padding[1]) if len(padding) == 2 else tuple(padding)
    p1 = np.pad(data1.astype("float64"), ((0, 0), (0, 0), (top, bottom), (left, right)))
    p2 = np.pad(data2.astype("float64"), ((0, 0), (0, 0), (top, bottom), (left, right)))
    batch, channels, height, width = data1.shape
    border = max_displacement + (kernel_size - 1) // 2
    steps = max_displacement // stride2
    side = 2 * steps + 1
    out_h = (height + top + bottom - 2 * border + stride1 - 1) // stride1
    out_w = (width + left + right - 2 * border + stride1 - 1) // stride1
    out = np.zeros((batch, side * side, out_h, out_w))
    for q, i, j in itertools.product(range(side * side), range(out_h), range(out_w)):
        y1, x1 = i * stride1 + max_displacement, j * stride1 + max_displacement
        y2, x2 = y1 + (q // side - steps) * stride2, x1 + (q % side - steps) * stride2
        a = p1[:, :, y1:y1 + kernel_size, x1:x1 + kernel_size]
        b = p2[:, :, y2:y2 + kernel_size, x2:x2 + kernel_size]
        out[:, q, i, j] = (a * b if is_multiply else np.abs(a - b)).sum(axis=(1, 2, 3))
    return (out / (kernel_size * kernel_size * channels)).astype(data1.dtype)
