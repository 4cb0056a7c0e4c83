"""1-d convolutions (TVM's ``topi.nn.conv1d``, ``conv1d_ncw``, ``conv1d_nwc``,
``group_conv1d_ncw``, ``group_conv1d_nwc``): :func:`topi.nn.conv.conv` over one spatial
dimension, kernels OIW (channels first) or WIO (channels last)."""

from __future__ import annotations

from typing import Any

from schedule import Tensor
from topi.nn.conv import conv


def conv1d(data: Tensor, kernel: Tensor, strides: Any = 1, padding: Any = "VALID", dilation: Any = 1,
           data_layout: str = "NCW", kernel_layout: str = "", out_dtype: str | None = None) -> Tensor:
    """The 1-d convolution in *data_layout* (``NCW`` or ``NWC``)."""
    return conv(data, kernel, strides, padding, dilation, 1, data_layout, kernel_layout, out_dtype)


def conv1d_ncw(data: Tensor, kernel: Tensor, strides: Any = 1, padding: Any = "VALID", dilation: Any = 1,
               out_dtype: str | None = None) -> Tensor:
    """Input NCW, kernel OIW: ``conv1d_ncw[n, f, x] = sum pad_temp[n, c, x*s + r*d] * kernel[f, c, r]``."""
    return conv(data, kernel, strides, padding, dilation, 1, "NCW", "OIW", out_dtype)


def conv1d_nwc(data: Tensor, kernel: Tensor, strides: Any = 1, padding: Any = "VALID", dilation: Any = 1,
               out_dtype: str | None = None) -> Tensor:
    """Input NWC, kernel WIO."""
    return conv(data, kernel, strides, padding, dilation, 1, "NWC", "WIO", out_dtype)


def group_conv1d_ncw(data: Tensor, kernel: Tensor, strides: Any = 1, padding: Any = "VALID", dilation: Any = 1,
                     groups: int = 1, out_dtype: str | None = None) -> Tensor:
    """The NCW convolution of *groups* channel groups: kernel ``(out, in // groups, width)``."""
    return conv(data, kernel, strides, padding, dilation, groups, "NCW", "OIW", out_dtype)


def group_conv1d_nwc(data: Tensor, kernel: Tensor, strides: Any = 1, padding: Any = "VALID", dilation: Any = 1,
                     groups: int = 1, out_dtype: str | None = None) -> Tensor:
    """The NWC convolution of *groups* channel groups: kernel ``(width, in // groups, out)``."""
    return conv(data, kernel, strides, padding, dilation, groups, "NWC", "WIO", out_dtype)
