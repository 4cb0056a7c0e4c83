"""The short-time Fourier transform (TVM's ``topi.stft``): the transform of windowed frames of
each signal, ``out[b, f, t] = sum_w window[w] * x[b, t * hop + w] * exp(-2 pi i f w / win)``
as (real, imaginary) pairs in the last axis, divided by ``sqrt(n_fft)`` when *normalized*.

As TVM computes it: the angle in float32 over the window length, each sum a reduction in the
data's type. The caller gives the output shape ``(batch, frequencies, frames, 2)``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from schedule.ir.dtype import is_float
from topi.transform.shape import tensor
from topi.utils import get_const_tuple


def stft(data: Tensor, n_fft: int, hop_length: int, win_length: int, window: Tensor, normalized: bool,
         onesided: bool, output_shape: Sequence[Any]) -> Tensor:
    """The STFT of the 2-d (batch, samples) *data* by the 1-d *window* (*onesided* only decides
    the caller's number of frequencies)."""
    data, window = tensor("stft", data), tensor("stft", window)
    if len(data.shape) != 2 or len(window.shape) != 1 or not is_float(data.dtype):
        raise ValueError(f"topi.stft: data is (batch, samples) floating point and window 1-d, got "
                         f"{data.dtype}{list(map(str, data.shape))} and {list(map(str, window.shape))}")
    for name, value in (("n_fft", n_fft), ("hop_length", hop_length), ("win_length", win_length)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"topi.stft: {name} is a positive int, got {value!r}")
    shape = list(output_shape)
    if len(shape) != 4 or get_const_tuple(shape)[3] != 2 or get_const_tuple(shape)[0] != get_const_tuple(
            data.shape)[0]:
        raise ValueError(f"topi.stft: output_shape is (batch, frequencies, frames, 2), got {output_shape!r}")
    w = te.reduce_axis((0, win_length), name="wlen")
    scale = arith.const(1.0 / math.sqrt(n_fft) if normalized else 1.0, data.dtype)

    def element(b: Any, f: Any, t: Any, part: Any) -> Any:
        angle = arith.const(2 * math.pi, "float32") * f.astype("float32") * w.var.astype("float32") / arith.const(
            win_length, "float32")
        wave = te.if_then_else(part == 0, te.cos(angle), -te.sin(angle)).astype(data.dtype)
        return te.sum(window[w] * data[b, t * hop_length + w] * wave, axis=w)

    spectrum = te.compute(shape, element, name="stft_sum", tag="stft")
    if not normalized:
        return spectrum
    return te.compute(shape, lambda *i: spectrum(*i) * scale, name="stft_normalized", tag="stft")
