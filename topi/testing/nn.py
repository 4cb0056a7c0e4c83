"""NumPy references for the other neural-network operators (TVM's ``topi.testing.softmax_python``,
``batch_norm``, ``layer_norm_python``, ``lrn_python``, ``dense``, ``batch_matmul`` ...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def softmax_python(a_np: np.ndarray, axis: int = 1) -> np.ndarray:
    """``exp(a - max) / sum(exp(a - max))`` along *axis*."""
    e = np.exp(a_np - a_np.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_python(a_np: np.ndarray, axis: int = 1) -> np.ndarray:
    """``a - max - log(sum(exp(a - max)))`` along *axis*."""
    shifted = a_np - a_np.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def batch_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, moving_mean: np.ndarray, moving_var: np.ndarray,
               axis: int, epsilon: float, center: bool, scale: bool, training: bool,
               momentum: float) -> list[np.ndarray]:
    """The normalized *x* and the moving mean and variance (updated by *momentum* in training)."""
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    others = tuple(k for k in range(x.ndim) if k != axis % x.ndim)
    mean, var = (x.mean(axis=others), x.var(axis=others)) if training else (moving_mean, moving_var)
    out = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + epsilon)
    out = out * gamma.reshape(shape) if scale else out
    out = out + beta.reshape(shape) if center else out
    if training:
        return [out, (1 - momentum) * moving_mean + momentum * mean, (1 - momentum) * moving_var + momentum * var]
    return [out, moving_mean, moving_var]


def layer_norm_python(data: np.ndarray, gamma: np.ndarray, beta: np.ndarray, axis: Any,
                      epsilon: float = 1e-5) -> np.ndarray:
    """``(data - mean) / sqrt(var + epsilon) * gamma + beta`` over *axis*."""
    axes = tuple(np.atleast_1d(axis) % data.ndim)
    mean = data.mean(axis=axes, keepdims=True)
    var = data.var(axis=axes, keepdims=True)
    shape = [data.shape[k] if k in axes else 1 for k in range(data.ndim)]
    return (data - mean) / np.sqrt(var + epsilon) * gamma.reshape(shape) + beta.reshape(shape)


def instance_norm_python(data: np.ndarray, gamma: np.ndarray, beta: np.ndarray | None, axis: Any,
                         epsilon: float = 1e-5) -> np.ndarray:
    """:func:`layer_norm_python` over each instance's *axis* (*beta* may be None)."""
    return layer_norm_python(data, gamma, np.zeros_like(gamma) if beta is None else beta, axis, epsilon)


def group_norm_python(data: np.ndarray, gamma: np.ndarray, beta: np.ndarray, num_groups: int, channel_axis: int,
                      axes: Any, epsilon: float = 1e-5) -> np.ndarray:
    """Each group of channels normalized over its channels and *axes*, then scaled and shifted
    per channel."""
    channel = channel_axis % data.ndim
    shape = list(data.shape)
    grouped = data.reshape(*shape[:channel], num_groups, shape[channel] // num_groups, *shape[channel + 1:])
    over = tuple(sorted([channel + 1, *((a % data.ndim) + (a % data.ndim > channel) for a in np.atleast_1d(axes))]))
    mean = grouped.mean(axis=over, keepdims=True)
    out = ((grouped - mean) / np.sqrt(grouped.var(axis=over, keepdims=True) + epsilon)).reshape(shape)
    per_channel = [shape[channel] if k == channel else 1 for k in range(data.ndim)]
    return out * gamma.reshape(per_channel) + beta.reshape(per_channel)


def nll_loss(predictions: np.ndarray, targets: np.ndarray, weights: np.ndarray, reduction: str = "mean",
             ignore_index: int = -100) -> np.ndarray:
    """The negative log-likelihood loss of class-index *targets* (see ``topi.nn.nll_loss``)."""
    scalar = predictions.ndim == 1
    if scalar:
        predictions, targets = predictions[None], np.asarray(targets)[None]
    kept = targets != ignore_index
    safe = np.where(kept, targets, 0)
    picked = np.take_along_axis(predictions, safe[:, None], axis=1)[:, 0]
    each = np.where(kept, -picked * weights[safe], 0).astype(predictions.dtype)
    taken = np.where(kept, weights[safe], 0).astype(predictions.dtype)
    if reduction == "none":
        return each.reshape(()) if scalar else each
    if reduction == "sum":
        return np.asarray(each.sum(), predictions.dtype)
    return np.asarray(each.sum() / taken.sum(), predictions.dtype)


def lrn_python(a_np: np.ndarray, size: int, axis: int, bias: float, alpha: float, beta: float) -> np.ndarray:
    """``a / (bias + alpha * window_sum(a**2) / size) ** beta``, the window of *size* centred on
    each element along *axis*."""
    moved = np.moveaxis(a_np, axis, 0)
    squares = np.zeros_like(moved)
    for c in range(moved.shape[0]):
        lo, hi = max(0, c - size // 2), min(moved.shape[0], c + size // 2 + 1)
        squares[c] = (moved[lo:hi] ** 2).sum(axis=0)
    return np.moveaxis(moved / (bias + alpha * squares / size) ** beta, 0, axis)


def dense(x: np.ndarray, y: np.ndarray, bias: np.ndarray | None, use_bias: bool = False, use_relu: bool = False,
          out_dtype: str | None = None) -> np.ndarray:
    """``x @ y.T`` (+ *bias*, then relu, when asked)."""
    out = x.astype(out_dtype or x.dtype) @ y.T.astype(out_dtype or x.dtype)
    out = out + bias if use_bias else out
    return np.maximum(out, 0) if use_relu else out


def batch_matmul(x: np.ndarray, y: np.ndarray, out_dtype: str | None = None, trans_x: bool = False,
                 trans_y: bool = True) -> np.ndarray:
    """``x[b] @ y[b]`` per batch (after the asked transposes) in *out_dtype* (the operands cast
    first, so int8 products do not wrap); a batch of 1 is shared."""
    dtype = out_dtype or x.dtype
    a = (x.transpose(0, 2, 1) if trans_x else x).astype(dtype)
    b = (y.transpose(0, 2, 1) if trans_y else y).astype(dtype)
    return np.matmul(a, b)


def upsampling_python(data: np.ndarray, scale: Sequence[float], layout: str = "NCHW",
                      method: str = "nearest_neighbor", align_corners: bool = False) -> np.ndarray:
    """*data* with H and W scaled, each output pixel read at ``y * in / out`` (``y * (in - 1) /
    (out - 1)`` with *align_corners*): the pixel there, or the bilinear mix around it."""
    moved = np.moveaxis(data, [layout.index("H"), layout.index("W")], [-2, -1]).astype("float64")
    h, w = moved.shape[-2:]
    out_h, out_w = int(round(h * scale[0])), int(round(w * scale[1]))

    def coords(out: int, size: int) -> np.ndarray:
        ratio = (size - 1) / max(out - 1, 1) if align_corners else size / out
        return np.arange(out, dtype="float32") * np.float32(ratio)

    cy, cx = coords(out_h, h), coords(out_w, w)
    if method == "nearest_neighbor":
        pick = np.round if align_corners else np.floor
        ys = np.minimum(pick(cy).astype(int), h - 1)
        xs = np.minimum(pick(cx).astype(int), w - 1)
        out = moved[..., ys, :][..., xs]
    else:
        y0, x0 = np.minimum(np.floor(cy).astype(int), h - 1), np.minimum(np.floor(cx).astype(int), w - 1)
        y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
        fy, fx = (cy - np.floor(cy))[:, None], (cx - np.floor(cx))[None, :]
        top = moved[..., y0, :][..., x0] * (1 - fx) + moved[..., y0, :][..., x1] * fx
        bottom = moved[..., y1, :][..., x0] * (1 - fx) + moved[..., y1, :][..., x1] * fx
        out = top * (1 - fy) + bottom * fy
    return np.moveaxis(out, [-2, -1], [layout.index("H"), layout.index("W")]).astype(data.dtype)


def strided_slice_python(data: np.ndarray, begin: Sequence[int], end: Sequence[int],
                         strides: Sequence[int] | None = None, slice_mode: str = "end",
                         axes: Sequence[int] | None = None) -> np.ndarray:
    """``data[begin:end:strides]`` over *axes* (the first ones by default)."""
    index = [slice(None)] * data.ndim
    steps = list(strides or [1] * len(begin)) + [1] * len(begin)
    for k, (b, e) in enumerate(zip(begin, end)):
        ax = axes[k] if axes is not None else k
        if slice_mode == "size":
            index[ax] = slice(b, None if e < 0 else b + e)
        else:
            index[ax] = slice(b, e, steps[k])
    return data[tuple(index)]
