"""NumPy references for the convolutions (TVM's ``topi.testing.conv2d_nchw_python`` ...):
each tap of the kernel as one strided slice of the padded input, contracted over channels."""

from __future__ import annotations

from typing import Any

import numpy as np

from topi.testing.conv_nd import conv_transpose_ncx_python
from topi.utils import get_pad_tuple, pair


def dilate_python(np_data: np.ndarray, strides: Any, dilation_value: float = 0.0) -> np.ndarray:
    """*np_data* with ``strides[k] - 1`` elements of *dilation_value* between neighbours on axis k."""
    shape = [(d - 1) * s + 1 for d, s in zip(np_data.shape, strides)]
    out = np.full(shape, dilation_value, dtype=np_data.dtype)
    out[tuple(slice(None, None, s) for s in strides)] = np_data
    return out


def _taps(padded: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int], dilation: tuple[int, int],
          out: tuple[int, int]) -> Any:
    """For each tap (ry, rx): the input rows and columns it reads for every output position."""
    for ry in range(kernel[0]):
        for rx in range(kernel[1]):
            y0, x0 = ry * dilation[0], rx * dilation[1]
            yield ry, rx, padded[..., y0:y0 + stride[0] * (out[0] - 1) + 1:stride[0],
                                 x0:x0 + stride[1] * (out[1] - 1) + 1:stride[1]]


def conv2d_nchw_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, groups: int = 1,
                       dilation: Any = 1) -> np.ndarray:
    """The NCHW convolution of *a_np* by OIHW *w_np* (``w_np.shape[1] == channels // groups``)."""
    n, c, h, w = a_np.shape
    f, per_group, kh, kw = w_np.shape
    sh, sw = pair("conv2d_nchw_python", "stride", stride)
    dh, dw = pair("conv2d_nchw_python", "dilation", dilation)
    top, left, bottom, right = get_pad_tuple(padding, ((kh - 1) * dh + 1, (kw - 1) * dw + 1))
    padded = np.pad(a_np, ((0, 0), (0, 0), (top, bottom), (left, right)))
    out_h = (h + top + bottom - (kh - 1) * dh - 1) // sh + 1
    out_w = (w + left + right - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, f, out_h, out_w), dtype=np.result_type(a_np, w_np))
    per_out = f // groups
    for g in range(groups):
        data = padded[:, g * per_group:(g + 1) * per_group]
        weight = w_np[g * per_out:(g + 1) * per_out]
        for ry, rx, window in _taps(data, (kh, kw), (sh, sw), (dh, dw), (out_h, out_w)):
            out[:, g * per_out:(g + 1) * per_out] += np.einsum("nchw,fc->nfhw", window, weight[:, :, ry, rx])
    return out


def conv2d_nhwc_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, groups: int = 1,
                       dilation: Any = 1) -> np.ndarray:
    """The NHWC convolution of *a_np* by HWIO *w_np* (``in_channels // groups`` per filter)."""
    out = conv2d_nchw_python(a_np.transpose(0, 3, 1, 2), w_np.transpose(3, 2, 0, 1), stride, padding, groups,
                             dilation=dilation)
    return out.transpose(0, 2, 3, 1)


def conv2d_hwcn_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any,
                       dilation: Any = 1) -> np.ndarray:
    """The HWCN convolution of *a_np* by HWIO *w_np*."""
    out = conv2d_nchw_python(a_np.transpose(3, 2, 0, 1), w_np.transpose(3, 2, 0, 1), stride, padding,
                             dilation=dilation)
    return out.transpose(2, 3, 1, 0)


def depthwise_conv2d_python_nchw(input_np: np.ndarray, filter_np: np.ndarray, stride: Any, padding: Any,
                                 dilation: Any = 1) -> np.ndarray:
    """The depthwise convolution of NCHW *input_np* by ``(channels, multiplier, rows, cols)``."""
    c, m, kh, kw = filter_np.shape
    weight = filter_np.reshape(c * m, 1, kh, kw)
    return conv2d_nchw_python(np.repeat(input_np, m, axis=1), weight, stride, padding, groups=c * m,
                              dilation=dilation)



def depthwise_conv2d_python_nhwc(input_np: np.ndarray, filter_np: np.ndarray, stride: Any, padding: Any,
                                 dilation: Any = 1) -> np.ndarray:
    """The depthwise convolution of NHWC *input_np* by ``(rows, cols, channels, multiplier)``."""
    out = depthwise_conv2d_python_nchw(input_np.transpose(0, 3, 1, 2), filter_np.transpose(2, 3, 0, 1), stride,
                                       padding, dilation)
    return out.transpose(0, 2, 3, 1)


def depthwise_conv2d_python_nchwc(input_np: np.ndarray, filter_np: np.ndarray, stride: Any, padding: Any,
                                  dilation: Any = 1) -> np.ndarray:
    """The depthwise convolution of NCHWc *input_np* ``(n, c // cb, h, w, cb)`` by the filter
    ``(out // ob, 1, rows, cols, 1, ob)``; the output ``(n, out // ob, oh, ow, ob)``."""
    n, chunks, h, w, cb = input_np.shape
    out_chunks, _, kh, kw, _, ob = filter_np.shape
    channels = chunks * cb
    data = input_np.transpose(0, 1, 4, 2, 3).reshape(n, channels, h, w)
    weight = filter_np[:, 0, :, :, 0, :].transpose(0, 3, 1, 2).reshape(out_chunks * ob, kh, kw)
    out = depthwise_conv2d_python_nchw(data, weight.reshape(channels, -1, kh, kw), stride, padding, dilation)
    return out.reshape(n, out_chunks, ob, *out.shape[2:]).transpose(0, 1, 3, 4, 2)

def conv2d_transpose_nchw_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any,
                                 output_padding: Any = (0, 0), groups: int = 1) -> np.ndarray:
    """The transposed NCHW convolution by an IOHW kernel (``(in, out // groups, rows, cols)``)."""
    return conv_transpose_ncx_python(a_np, w_np, stride, padding, output_padding, groups)
