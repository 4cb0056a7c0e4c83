"""The discrete Fourier transform (TVM's ``topi.dft``) along the last axis of a complex signal
given as its real and imaginary parts: ``X[k] = sum_n x[n] * exp(-+2 pi i n k / N)``, divided
by N for the inverse. An extern operation; each row's frequencies in parallel (a GPU thread each for
``topi.cuda.dft``), each a sum
accumulated in float32 (float64 for float64 signals), its angle reduced modulo N first."""

from __future__ import annotations

import math
from typing import Any

from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from schedule.ir.buffer import decl_buffer
from schedule.ir.dtype import is_float
from schedule.ir.intrinsics import cos, sin
from topi.extern_items import each_item
from topi.transform.shape import product, tensor


def dft(re_data: Tensor, im_data: Tensor, inverse: Any) -> list[Tensor]:
    """The real and imaginary parts of the transform (the inverse one when *inverse*).

    :raises ValueError: for parts of another shape or type, or not floating point.
    """
    return _dft(re_data, im_data, inverse, False)


def cuda_dft(re_data: Tensor, im_data: Tensor, inverse: Any) -> list[Tensor]:
    """:func:`dft` with one GPU thread per output frequency (TVM's ``topi.cuda.dft``)."""
    return _dft(re_data, im_data, inverse, True)


def _dft(re_data: Tensor, im_data: Tensor, inverse: Any, gpu: bool) -> list[Tensor]:
    re, im = tensor("dft", re_data), tensor("dft", im_data)
    if not is_float(re.dtype) or re.dtype != im.dtype or len(re.shape) != len(im.shape) or any(
            arith.value_of(arith.sub(a, b)) not in (0, None) for a, b in zip(re.shape, im.shape)) or not re.shape:
        raise ValueError(f"topi.dft: the real and imaginary parts are floating-point tensors of one shape and type "
                         f"(at least 1-d), got {re.dtype}{list(map(str, re.shape))} and "
                         f"{im.dtype}{list(map(str, im.shape))}")
    backward = bool(arith.value_of(inverse) if hasattr(inverse, "dtype") else inverse)
    acc = "float64" if re.dtype == "float64" else "float32"
    n_fft = re.shape[-1]
    rows = product(re.shape[:-1])
    sign = 1.0 if backward else -1.0

    def body(xr: Any, xi: Any, yr: Any, yi: Any) -> Any:
        ib = ir_builder.create()
        xr, xi, yr, yi = (ib.buffer_ptr(b) for b in (xr, xi, yr, yi))
        with each_item(ib, rows * n_fft, gpu) as i:
            row, k = i // n_fft * n_fft, i % n_fft
            sums = ib.allocate(acc, (2,), name="sums", scope="local")
            sums[0] = arith.const(0.0, acc)
            sums[1] = arith.const(0.0, acc)
            with ib.for_range(0, n_fft, "n") as n:
                turn = (n * k % n_fft).astype(acc) / n_fft.astype(acc)
                angle = turn * arith.const(sign * 2 * math.pi, acc)
                c, s = cos(angle), sin(angle)
                a, b = xr[row + n].astype(acc), xi[row + n].astype(acc)
                sums[0] = sums[0] + a * c - b * s
                sums[1] = sums[1] + a * s + b * c
            scale = arith.const(1.0, acc) / n_fft.astype(acc) if backward else arith.const(1.0, acc)
            yr[i] = (sums[0] * scale).astype(re.dtype)
            yi[i] = (sums[1] * scale).astype(re.dtype)
        return ib.get()

    outs = [decl_buffer(re.shape, re.dtype, "re_output_buf"), decl_buffer(re.shape, re.dtype, "im_output_buf")]
    return extern([re.shape, re.shape], [re, im], lambda ins, o: body(ins[0], ins[1], o[0], o[1]),
                  dtype=[re.dtype, re.dtype], out_buffers=outs, name="dft_cpu", tag="dft_cpu")
