"""Normalizations (TVM's ``topi.nn.batch_norm``, ``layer_norm`` and ``lrn``)."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.nn.pad import pad
from topi.reduction import normalize_axes
from topi.reduction import sum as reduce_sum
from topi.transform.shape import product, reshape, tensor


def batch_norm(data: Tensor, gamma: Tensor, beta: Tensor, moving_mean: Tensor, moving_var: Tensor,
               axis: int | None = None, epsilon: float | None = None, center: bool | None = None,
               scale: bool | None = None, training: bool | None = None,
               momentum: float | None = None) -> list[Tensor]:
    """``(data - mean) / sqrt(var + epsilon) * gamma + beta`` per element of *axis* (default 1),
    with the moving statistics (inference) or the batch's own (*training*). Returns the output and
    the moving mean and variance: unchanged in inference, updated by *momentum* in training."""
    for what, t in (("data", data), ("gamma", gamma), ("beta", beta), ("moving_mean", moving_mean),
                    ("moving_var", moving_var)):
        tensor(f"nn.batch_norm ({what})", t)
    (axis_,) = normalize_axes("nn.batch_norm", len(data.shape), 1 if axis is None else axis)
    eps = 1e-5 if epsilon is None else epsilon
    momentum = 0.1 if momentum is None else momentum
    if not 0 <= momentum <= 1:
        raise ValueError(f"topi.nn.batch_norm: momentum {momentum} must be within [0, 1]")
    shape = [1] * len(data.shape)
    shape[axis_] = data.shape[axis_]
    if training:
        others = [k for k in range(len(data.shape)) if k != axis_]
        count = product([data.shape[k] for k in others]).astype(data.dtype)
        mean = reduce_sum(data, axis=others) / count
        centred = data - reshape(mean, shape)
        var = reduce_sum(centred * centred, axis=others) / count
        out = centred / te.compute(shape, lambda *i: te.sqrt(reshape(var, shape)[i] + eps), tag=tag.ELEMWISE)
    else:
        mean, var = moving_mean, moving_var
        root = reshape(moving_var, shape)
        out = (data - reshape(moving_mean, shape)) / te.compute(shape, lambda *i: te.sqrt(root[i] + eps),
                                                                 tag=tag.ELEMWISE)
    if scale is None or scale:
        out = out * reshape(gamma, shape)
    if center is None or center:
        out = out + reshape(beta, shape)
    if training:
        return [out, moving_mean * (1 - momentum) + mean * momentum, moving_var * (1 - momentum) + var * momentum]
    return [out, moving_mean * 1, moving_var * 1]


def layer_norm(data: Tensor, gamma: Tensor, beta: Tensor, axis: Any, epsilon: float = 1e-5) -> Tensor:
    """``(data - mean) / sqrt(var + epsilon) * gamma + beta`` with the statistics over *axis*
    (an axis or a list); *gamma* and *beta* have the shape of those axes."""
    data, gamma, beta = tensor("nn.layer_norm", data), tensor("nn.layer_norm", gamma), tensor("nn.layer_norm", beta)
    axes = normalize_axes("nn.layer_norm", len(data.shape), axis)
    if len(gamma.shape) != len(axes) or len(beta.shape) != len(axes):
        raise ValueError(f"topi.nn.layer_norm: gamma and beta must have the shape of the normalized axes "
                         f"{[str(data.shape[k]) for k in axes]}")
    count = product([data.shape[k] for k in axes]).astype(data.dtype)
    mean = reduce_sum(data, axis=axes, keepdims=True) / count
    centred = data - mean
    var = reduce_sum(centred * centred, axis=axes, keepdims=True) / count

    def element(*i: Any) -> Any:
        kept = tuple(0 if k in axes else x for k, x in enumerate(i))
        own = tuple(i[k] for k in axes)
        return centred[i] / te.sqrt(var[kept] + arith.const(epsilon, data.dtype)) * gamma[own] + beta[own]
    return te.compute(data.shape, element, name="T_layer_norm", tag=tag.INJECTIVE)


def lrn(data: Tensor, size: int, axis: int = 1, alpha: float = 0.0001, beta: float = 0.75,
        bias: float = 2) -> Tensor:
    """Local response normalization across *axis*: ``data / (bias + alpha * sum(data**2 over a
    window of size) / size) ** beta``, the window centred on the element."""
    data = tensor("nn.lrn", data)
    (axis_,) = normalize_axes("nn.lrn", len(data.shape), axis)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"topi.nn.lrn: size must be a positive int, got {size!r}")
    half = size // 2
    before, after = [0] * len(data.shape), [0] * len(data.shape)
    before[axis_], after[axis_] = half, half
    padded = pad(data, before, after, name="pad_data")
    r = te.reduce_axis((0, size), name="rxs")

    def window(*i: Any) -> Any:
        at = list(i)
        at[axis_] = i[axis_] + r
        return te.sum(padded[tuple(at)] * padded[tuple(at)], axis=r)
    squares = te.compute(data.shape, window, name="sqr_sum")
    return te.compute(data.shape, lambda *i: data[i] / te.power(
        squares[i] * arith.const(alpha / size, data.dtype) + arith.const(bias, data.dtype),
        arith.const(beta, data.dtype)), name="lrn", tag=tag.BROADCAST)
