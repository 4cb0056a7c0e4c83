"""Bilinear reads at float coordinates (TVM's ``topi.cpp.utils.bilinear_sample_nchw`` and
``_nhwc``): the four neighbours weighted by their distance, each one outside
``[0, max_y] x [0, max_x]`` counted as zero."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import schedule as te
from schedule.ir import arith


def bilinear_sample(read: Callable[[Any, Any], Any], y: Any, x: Any, max_y: Any, max_x: Any) -> Any:
    """The bilinear mix at (*y*, *x*) of ``read(row, col)``."""
    y_low, x_low = te.floor(y).astype("int32"), te.floor(x).astype("int32")
    wy, wx = y - y_low.astype(y.dtype), x - x_low.astype(x.dtype)
    total: Any = None
    for yy, fy in ((y_low, 1 - wy), (y_low + 1, wy)):
        for xx, fx in ((x_low, 1 - wx), (x_low + 1, wx)):
            inside = te.all(yy >= 0, yy <= max_y, xx >= 0, xx <= max_x)
            value = read(yy, xx)
            term = te.if_then_else(inside, fx * fy * value, arith.const(0, value.dtype))
            total = term if total is None else total + term
    return total


def bilinear_sample_nchw(data: Any, indices: Any, max_y: Any, max_x: Any) -> Any:
    """*data* (NCHW) at ``(n, c, y, x)`` = *indices*."""
    n, c, y, x = indices
    return bilinear_sample(lambda r, q: data[n, c, r, q], y, x, max_y, max_x)


def bilinear_sample_nhwc(data: Any, indices: Any, max_y: Any, max_x: Any) -> Any:
    """*data* (NHWC) at ``(n, y, x, c)`` = *indices*."""
    n, y, x, c = indices
    return bilinear_sample(lambda r, q: data[n, r, q, c], y, x, max_y, max_x)
