"""Normalizations (TVM's ``topi.nn.batch_norm``, ``layer_norm``, ``instance_norm``, ``group_norm``
and ``lrn``)."""

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


def layer_norm(data: Tensor, gamma: Tensor | None, beta: Tensor | None, axis: Any, epsilon: float = 1e-5) -> Tensor:
    """``(data - mean) / sqrt(var + epsilon) * gamma + beta`` with the statistics over *axis*
    (an axis or a list); *gamma* and *beta* (either may be None) have the shape of those axes."""
    return _norm_over("layer_norm", data, gamma, beta, axis, epsilon, "T_layer_norm")


def instance_norm(data: Tensor, gamma: Tensor | None, beta: Tensor | None, axis: Any,
                  epsilon: float = 1e-5) -> Tensor:
    """:func:`layer_norm` over *axis* (each instance's own spatial axes), named as TVM names it."""
    return _norm_over("instance_norm", data, gamma, beta, axis, epsilon, "T_instance_norm")


def _norm_over(op: str, data: Tensor, gamma: Tensor | None, beta: Tensor | None, axis: Any, epsilon: float,
               name: str) -> Tensor:
    data = tensor(f"nn.{op}", data)
    axes = normalize_axes(f"nn.{op}", len(data.shape), axis)
    for what, t in (("gamma", gamma), ("beta", beta)):
        if t is not None and len(tensor(f"nn.{op}", t).shape) != len(axes):
            raise ValueError(f"topi.nn.{op}: {what} must have the shape of the normalized axes "
                             f"{[str(data.shape[k]) for k in axes]}")
    centred, root = _statistics(data, axes, epsilon)

    def element(*i: Any) -> Any:
        kept = tuple(0 if k in axes else x for k, x in enumerate(i))
        own = tuple(i[k] for k in axes)
        out = centred[i] / root[kept]
        out = out * gamma[own] if gamma is not None else out
        return out + beta[own] if beta is not None else out
    return te.compute(data.shape, element, name=name, tag=tag.INJECTIVE)


def _statistics(data: Tensor, axes: list[int], epsilon: float) -> tuple[Tensor, Tensor]:
    """``data - mean`` and ``sqrt(var + epsilon)`` (kept dimensions) over *axes*, in two passes
    (the variance of the centred values, not E[x^2] - mean^2, which cancels)."""
    count = product([data.shape[k] for k in axes]).astype(data.dtype)
    mean = reduce_sum(data, axis=axes, keepdims=True) / count
    centred = data - mean
    var = reduce_sum(centred * centred, axis=axes, keepdims=True) / count
    root = te.compute(var.shape, lambda *i: te.sqrt(var[i] + arith.const(epsilon, data.dtype)), tag=tag.ELEMWISE)
    return centred, root


def group_norm(data: Tensor, gamma: Tensor | None, beta: Tensor | None, num_groups: int, channel_axis: int,
               axes: Any, epsilon: float = 1e-5) -> Tensor:
    """The channels of *channel_axis* in *num_groups* groups, each normalized over its own
    channels and *axes*, then ``* gamma[c] + beta[c]`` (gamma and beta one per channel; either
    may be None).

    :raises ValueError: for groups that do not divide the channels, or *axes* holding the channel axis.
    """
    data = tensor("nn.group_norm", data)
    ndim = len(data.shape)
    (channel,) = normalize_axes("nn.group_norm", ndim, channel_axis)
    others = normalize_axes("nn.group_norm", ndim, axes)
    if channel in others:
        raise ValueError(f"topi.nn.group_norm: axes {axes!r} must not hold the channel axis {channel_axis}")
    channels = data.shape[channel]
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups < 1 or (
            arith.value_of(channels) is not None and arith.value_of(channels) % num_groups):
        raise ValueError(f"topi.nn.group_norm: num_groups must be a positive int that divides the {channels} "
                         f"channels, got {num_groups!r}")
    for what, t in (("gamma", gamma), ("beta", beta)):
        if t is not None and len(tensor("nn.group_norm", t).shape) != 1:
            raise ValueError(f"topi.nn.group_norm: {what} has one value per channel ({channels},)")
    size = arith.floordiv(channels, num_groups)
    grouped = reshape(data, [*data.shape[:channel], num_groups, size, *data.shape[channel + 1:]])
    inner = sorted([channel + 1, *(k + 1 if k > channel else k for k in others)])
    centred, root = _statistics(grouped, inner, epsilon)

    def element(*i: Any) -> Any:
        kept = tuple(0 if k in inner else x for k, x in enumerate(i))
        c = i[channel] * size + i[channel + 1]
        out = centred[i] / root[kept]
        out = out * gamma[c] if gamma is not None else out
        return out + beta[c] if beta is not None else out
    return reshape(te.compute(grouped.shape, element, name="T_group_norm", tag=tag.INJECTIVE), data.shape)


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
