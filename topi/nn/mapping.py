"""Per-channel affine maps (TVM's ``topi.nn.scale_shift_nchw``, ``_nhwc``, ``_nchwc``):
``Input * Scale[channel] + Shift[channel]``, the channel found where the layout keeps it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import schedule as te
from schedule import Tensor


def _scale_shift(op: str, layout: str, data: Tensor, scale: Tensor, shift: Tensor,
                 channel: Callable[[tuple[Any, ...]], tuple[Any, ...]], rank: int) -> Tensor:
    for what, t, dims in (("Input", data, len(layout)), ("Scale", scale, rank), ("Shift", shift, rank)):
        if not isinstance(t, Tensor):
            raise TypeError(f"topi.nn.{op}: {what} must be a tensor, got {t!r}")
        if len(t.shape) != dims:
            raise ValueError(f"topi.nn.{op}: {what} must be {dims}-dimensional ({layout} data), got shape "
                             f"{list(map(str, t.shape))}")

    def element(*i: Any) -> Any:
        c = channel(i)
        return data[i] * scale[c] + shift[c]
    return te.compute(data.shape, element, name="ScaleShift", tag="broadcast")


def scale_shift_nchw(Input: Tensor, Scale: Tensor, Shift: Tensor) -> Tensor:  # noqa: N803 - TVM's names
    """``Input[b, c, i, j] * Scale[c] + Shift[c]``."""
    return _scale_shift("scale_shift_nchw", "NCHW", Input, Scale, Shift, lambda i: (i[1],), 1)


def scale_shift_nhwc(Input: Tensor, Scale: Tensor, Shift: Tensor) -> Tensor:  # noqa: N803
    """``Input[b, i, j, c] * Scale[c] + Shift[c]``."""
    return _scale_shift("scale_shift_nhwc", "NHWC", Input, Scale, Shift, lambda i: (i[3],), 1)


def scale_shift_nchwc(Input: Tensor, Scale: Tensor, Shift: Tensor) -> Tensor:  # noqa: N803
    """``Input[b, cc, i, j, cb] * Scale[cc, cb] + Shift[cc, cb]`` (channels in blocks)."""
    return _scale_shift("scale_shift_nchwc", "NCHWc", Input, Scale, Shift, lambda i: (i[1], i[4]), 2)
