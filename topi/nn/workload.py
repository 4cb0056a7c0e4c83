"""The workload of a 2-d convolution as TVM's x86 schedules key their fallback tiles on
(``topi.nn.conv2d._get_workload`` and ``topi.nn.depthwise_conv2d._get_workload``): the data
and output types, the input size, the channels, the kernel, and the padding, dilation and
stride in each direction, all as ints."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from schedule import Tensor
from topi.nn.window import Window
from topi.utils import const_value

_WINDOW = ["kernel_h", "kernel_w", "padt", "padl", "padb", "padr", "dilation_h", "dilation_w", "stride_h",
           "stride_w"]

Workload = namedtuple("Workload", ["in_dtype", "out_dtype", "height", "width", "in_filter", "groups",
                                   "out_filter", *_WINDOW])
DepthwiseWorkload = namedtuple("Workload", ["in_dtype", "out_dtype", "height", "width", "in_filter",
                                            "out_filter", *_WINDOW])

# Where each layout keeps (height, width, channels) of the data; channels may be split in two.
_DATA = {"NCHW": ((2,), (3,), (1,)), "NHWC": ((1,), (2,), (3,)), "NCHWc": ((2,), (3,), (1, 4))}


def _ints(op: str, what: str, dims: Any) -> list[int]:
    values = [const_value(d) for d in dims]
    if any(not isinstance(v, int) for v in values):
        raise ValueError(f"topi.nn.{op}._get_workload: the {what} shape {list(dims)} must be constant")
    return values


def _product(shape: list[int], where: tuple[int, ...]) -> int:
    out = 1
    for i in where:
        out *= shape[i]
    return out


def _data(op: str, data: Tensor, layout: str) -> tuple[int, int, int]:
    """(height, width, channels) of *data* in *layout*."""
    if layout not in _DATA or len(data.shape) != 4 + (layout == "NCHWc"):
        raise ValueError(f"topi.nn.{op}._get_workload: data layout {layout!r} with shape {list(data.shape)} is "
                         f"not supported; use NCHW, NHWC (4-d) or NCHWc (5-d)")
    shape = _ints(op, "data", data.shape)
    h, w, c = _DATA[layout]
    return _product(shape, h), _product(shape, w), _product(shape, c)


def _window(op: str, height: int, width: int, kh: int, kw: int, stride: Any, padding: Any,
            dilation: Any) -> list[int]:
    win = Window(op, height, width, (kh, kw), stride, padding, dilation)
    return [kh, kw, win.top, win.left, win.bottom, win.right, win.dh, win.dw, win.sh, win.sw]


def conv2d_workload(data: Tensor, kernel: Tensor, stride: Any, padding: Any, dilation: Any, out_dtype: str,
                    data_layout: str = "NCHW") -> Workload:
    """The :data:`Workload` of a (grouped) conv2d, kernel OIHW for NCHW data, HWIO for NHWC."""
    height, width, in_filter = _data("conv2d", data, data_layout)
    k = _ints("conv2d", "kernel", kernel.shape)
    if len(k) != 4:
        raise ValueError(f"topi.nn.conv2d._get_workload: the kernel must be 4-d, not {k}")
    out_filter, per_group, kh, kw = k if data_layout == "NCHW" else (k[3], k[2], k[0], k[1])
    if per_group < 1 or in_filter % per_group:
        raise ValueError(f"topi.nn.conv2d._get_workload: {in_filter} input channels are not a multiple of the "
                         f"kernel's {per_group}")
    window = _window("conv2d", height, width, kh, kw, stride, padding, dilation)
    return Workload(data.dtype, out_dtype, height, width, in_filter, in_filter // per_group, out_filter, *window)


def depthwise_workload(data: Tensor, kernel: Tensor, stride: Any, padding: Any, dilation: Any, out_dtype: str,
                       data_layout: str = "NCHW") -> DepthwiseWorkload:
    """The workload of a depthwise conv2d: kernel (channels, multiplier, h, w) for NCHW data,
    (h, w, channels, multiplier) for NHWC, (out chunks, 1, h, w, 1, out block) for NCHWc."""
    height, width, in_filter = _data("depthwise_conv2d", data, data_layout)
    k = _ints("depthwise_conv2d", "kernel", kernel.shape)
    if data_layout == "NCHW" and len(k) == 4:
        out_filter, kh, kw = k[0] * k[1], k[2], k[3]
    elif data_layout == "NHWC" and len(k) == 4:
        out_filter, kh, kw = k[2] * k[3], k[0], k[1]
    elif data_layout == "NCHWc" and len(k) == 6:
        out_filter, kh, kw = k[0] * k[5], k[2], k[3]
    else:
        raise ValueError(f"topi.nn.depthwise_conv2d._get_workload: a kernel of shape {k} does not fit layout "
                         f"{data_layout!r}")
    window = _window("depthwise_conv2d", height, width, kh, kw, stride, padding, dilation)
    return DepthwiseWorkload(data.dtype, out_dtype, height, width, in_filter, out_filter, *window)
