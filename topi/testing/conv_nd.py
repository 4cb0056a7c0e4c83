"""NumPy references for the convolutions of any number of spatial dimensions (TVM's
``topi.testing.conv1d_ncw_python``, ``conv3d_ncdhw_python``, their grouped, channels-last and
transposed forms): each tap of the kernel is one strided slice of the padded input,
contracted over a group's channels; a transposed convolution scatters each tap instead."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from topi.utils import get_pad_tuple_generic, pair


def conv_ncx_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, dilation: Any = 1,
                    groups: int = 1) -> np.ndarray:
    """The channels-first convolution of *a_np* ``(n, c, *size)`` by *w_np* ``(f, c // groups,
    *kernel)``."""
    dims = a_np.ndim - 2
    strides = pair("conv_ncx_python", "stride", stride, dims)
    dilations = pair("conv_ncx_python", "dilation", dilation, dims)
    f, per_group, *kernel = w_np.shape
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    before, after = get_pad_tuple_generic(padding, spans)
    padded = np.pad(a_np, [(0, 0), (0, 0), *zip(before, after)])
    out_size = [(p - span) // s + 1 for p, span, s in zip(padded.shape[2:], spans, strides)]
    out = np.zeros((a_np.shape[0], f, *out_size), dtype=np.result_type(a_np, w_np))
    per_out = f // groups
    for g in range(groups):
        data = padded[:, g * per_group:(g + 1) * per_group]
        for tap in itertools.product(*(range(k) for k in kernel)):
            window = data[(..., *(slice(t * d, t * d + s * (o - 1) + 1, s)
                                  for t, d, s, o in zip(tap, dilations, strides, out_size)))]
            weight = w_np[(slice(g * per_out, (g + 1) * per_out), slice(None), *tap)]
            out[:, g * per_out:(g + 1) * per_out] += np.einsum("nc...,fc->nf...", window, weight)
    return out


def conv_transpose_ncx_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any,
                              output_padding: Any = 0, groups: int = 1) -> np.ndarray:
    """The channels-first transposed convolution of *a_np* ``(n, c, *size)`` by *w_np* ``(c,
    f // groups, *kernel)``: every input element scatters ``a * w`` into the output at ``position
    * stride - pad_before + tap``; what lands outside is dropped."""
    dims = a_np.ndim - 2
    strides = pair("conv_transpose_ncx_python", "stride", stride, dims)
    extra = pair("conv_transpose_ncx_python", "output_padding", output_padding, dims)
    n, c, *size = a_np.shape
    _, per_out, *kernel = w_np.shape
    before, after = get_pad_tuple_generic(padding, kernel)
    full = [(x - 1) * s + k + e for x, s, k, e in zip(size, strides, kernel, extra)]
    out = np.zeros((n, per_out * groups, *full), dtype=np.result_type(a_np, w_np))
    per_group = c // groups
    for g in range(groups):
        data = a_np[:, g * per_group:(g + 1) * per_group]
        for tap in itertools.product(*(range(k) for k in kernel)):
            where = tuple(slice(t, t + (x - 1) * s + 1, s) for t, x, s in zip(tap, size, strides))
            weight = w_np[(slice(g * per_group, (g + 1) * per_group), slice(None), *tap)]
            out[(slice(None), slice(g * per_out, (g + 1) * per_out), *where)] += \
                np.einsum("nc...,cf->nf...", data, weight)
    return out[(slice(None), slice(None), *(slice(b, x - a) for b, a, x in zip(before, after, full)))]


def _channels_last(a_np: np.ndarray) -> np.ndarray:
    return np.moveaxis(a_np, -1, 1)


def conv1d_ncw_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, dilation: Any) -> np.ndarray:
    """The NCW convolution by an OIW kernel."""
    return conv_ncx_python(a_np, w_np, stride, padding, dilation)


def group_conv1d_ncw_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, dilation: Any,
                            groups: int) -> np.ndarray:
    """The NCW convolution of *groups* channel groups."""
    return conv_ncx_python(a_np, w_np, stride, padding, dilation, groups)


def conv3d_ncdhw_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, groups: int = 1) -> np.ndarray:
    """The NCDHW convolution by an OIDHW kernel (dilate the kernel first for a dilation)."""
    return conv_ncx_python(a_np, w_np, stride, padding, 1, groups)


def conv3d_ndhwc_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any, groups: int = 1) -> np.ndarray:
    """The NDHWC convolution by a DHWIO kernel."""
    out = conv_ncx_python(_channels_last(a_np), np.transpose(w_np, (4, 3, 0, 1, 2)), stride, padding, 1, groups)
    return np.moveaxis(out, 1, -1)


def conv1d_transpose_ncw_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any,
                                output_padding: Any) -> np.ndarray:
    """The transposed NCW convolution by an IOW kernel."""
    return conv_transpose_ncx_python(a_np, w_np, stride, padding, output_padding)


def conv3d_transpose_ncdhw_python(a_np: np.ndarray, w_np: np.ndarray, stride: Any, padding: Any,
                                  output_padding: Any) -> np.ndarray:
    """The transposed NCDHW convolution by an IODHW kernel."""
    return conv_transpose_ncx_python(a_np, w_np, stride, padding, output_padding)
