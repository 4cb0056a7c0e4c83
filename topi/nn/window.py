"""The sliding window of a 2-d convolution: stride, dilation and padding per direction, and
the output extent they give."""

from __future__ import annotations

from typing import Any

from schedule import Tensor
from schedule.ir import arith
from topi.utils import const_value, get_pad_tuple, pair


def check_tensors(op: str, **tensors: Any) -> None:
    """Refuse anything but 4-d tensors for the named arguments."""
    for what, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"topi.nn.{op}: {what} must be a tensor, got {t!r}")
        if len(t.shape) != 4:
            raise ValueError(f"topi.nn.{op}: {what} must be 4-dimensional, got shape {list(map(str, t.shape))}")


def out_extent(op: str, size: Any, kernel: Any, stride: int, dilation: int, before: int, after: int) -> Any:
    """The number of positions a dilated kernel takes along a padded axis at *stride*."""
    span = (const_value(kernel) - 1) * dilation + 1 if const_value(kernel) is not None else \
        arith.add(arith.mul(arith.sub(kernel, 1), dilation), 1)
    value = arith.add(arith.floordiv(arith.add(arith.sub(size, span), before + after), stride), 1)
    if const_value(value) is not None and const_value(value) < 1:
        raise ValueError(f"topi.nn.{op}: a kernel spanning {span} does not fit an axis of {size} padded by "
                         f"{before} + {after}")
    return value


class Window:
    """The stride, dilation and padding of a 2-d sliding window over rows and columns, and the
    output rows and columns it gives over an input of *rows* by *cols*."""

    def __init__(self, op: str, rows: Any, cols: Any, kernel: tuple[Any, Any], stride: Any, padding: Any,
                 dilation: Any) -> None:
        self.sh, self.sw = pair(op, "stride", stride)
        self.dh, self.dw = pair(op, "dilation", dilation)
        spans = [(const_value(k) - 1) * d + 1 if const_value(k) is not None else k
                 for k, d in zip(kernel, (self.dh, self.dw))]
        self.top, self.left, self.bottom, self.right = get_pad_tuple(padding, spans, op)
        self.out_h = out_extent(op, rows, kernel[0], self.sh, self.dh, self.top, self.bottom)
        self.out_w = out_extent(op, cols, kernel[1], self.sw, self.dw, self.left, self.right)

    def row(self, y: Any, ry: Any) -> Any:
        return y * self.sh + ry * self.dh

    def col(self, x: Any, rx: Any) -> Any:
        return x * self.sw + rx * self.dw
