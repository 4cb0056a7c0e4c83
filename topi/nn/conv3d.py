"""3-d convolutions (TVM's ``topi.nn.conv3d_ncdhw``, ``conv3d_ndhwc``): :func:`topi.nn.conv.conv`
over depth, rows and columns, kernels OIDHW (channels first) or DHWIO (channels last)."""

from __future__ import annotations

from typing import Any

from schedule import Tensor
from topi.nn.conv import conv


def conv3d_ncdhw(Input: Tensor, Filter: Tensor, stride: Any, padding: Any, dilation: Any,  # noqa: N803
                 groups: int, out_dtype: str | None = None) -> Tensor:
    """Input NCDHW, Filter OIDHW (``in_channels // groups`` per output channel)."""
    return conv(Input, Filter, stride, padding, dilation, groups, "NCDHW", "OIDHW", out_dtype)


def conv3d_ndhwc(Input: Tensor, Filter: Tensor, stride: Any, padding: Any, dilation: Any,  # noqa: N803
                 groups: int, out_dtype: str = "float32", auto_scheduler_rewritten_layout: str = "",
                 meta_schedule_origin_shape: Any = None) -> Tensor:
    """Input NDHWC, Filter DHWIO. The auto-scheduler's layout arguments are accepted and
    change nothing (this library does not rewrite layouts)."""
    return conv(Input, Filter, stride, padding, dilation, groups, "NDHWC", "DHWIO", out_dtype)
