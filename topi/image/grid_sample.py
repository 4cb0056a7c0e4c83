"""Sampling grids (TVM's ``topi.image.affine_grid`` and ``grid_sample``, PyTorch's semantics):
``affine_grid`` maps a regular grid over [-1, 1] through a batch of 2 x 3 affine matrices;
``grid_sample`` reads an NCHW (or NCDHW) image at a grid of normalized coordinates (x first),
nearest, (bi/tri)linear or bicubic, a point outside the image taking zeros, the border, or its
reflection."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi.transform.shape import tensor

_A = -0.75  # PyTorch's bicubic parameter


def affine_grid(data: Tensor, target_shape: Any) -> Tensor:
    """``out[n, d, i, j] = data[n, d, 0] * x_j + data[n, d, 1] * y_i + data[n, d, 2]`` with ``x_j``
    and ``y_i`` stepping over [-1, 1] (steps of ``(2 - 1e-7) / (extent - 1)``, as TVM's).

    :raises ValueError: for a target shape that is not two extents above 1, or data not (N, 2, 3).
    """
    data = tensor("image.affine_grid", data)
    if not isinstance(target_shape, (list, tuple)) or len(target_shape) != 2 or any(
            not isinstance(arith.value_of(arith.convert(t)), int) or arith.value_of(arith.convert(t)) < 2
            for t in target_shape):
        raise ValueError(f"topi.image.affine_grid: target_shape is (height, width), each above 1, got "
                         f"{target_shape!r}")
    if len(data.shape) != 3 or arith.value_of(data.shape[1]) != 2 or arith.value_of(data.shape[2]) != 3:
        raise ValueError(f"topi.image.affine_grid: data is a batch of 2 x 3 matrices (N, 2, 3), got "
                         f"{list(map(str, data.shape))}")
    h, w = (int(arith.value_of(arith.convert(t))) for t in target_shape)
    y_step, x_step = (arith.const((2.0 - 1e-7) / (n - 1), data.dtype) for n in (h, w))
    start = arith.const(-1.0, data.dtype)

    def element(n: Any, d: Any, i: Any, j: Any) -> Any:
        y, x = start + i * y_step, start + j * x_step
        return data[n, d, 0] * x + data[n, d, 1] * y + data[n, d, 2]
    return te.compute((data.shape[0], 2, h, w), element, tag="affine_grid")


def grid_sample(data: Tensor, grid: Tensor, method: str = "bilinear", layout: str = "NCHW",
                padding_mode: str = "zeros", align_corners: bool = True) -> Tensor:
    """*data* read at *grid* ``(N, 2, H', W')`` (or ``(N, 3, D', H', W')``, coordinates x, y[, z]).
    -1 and 1 are the centres of the corner elements with *align_corners*, their outer edges
    without. *method*: ``nearest`` (rounded half to even), ``bilinear`` (``trilinear`` in 3-d) or
    ``bicubic`` (2-d); *padding_mode*: ``zeros``, ``border`` or ``reflection``.

    :raises ValueError: for another method, padding mode or layout, or a grid that does not fit.
    """
    data, grid = tensor("image.grid_sample", data), tensor("image.grid_sample", grid)
    rank = len(data.shape) - 2
    if rank not in (2, 3) or layout != ("NCHW" if rank == 2 else "NCDHW"):
        raise ValueError(f"topi.image.grid_sample: data is NCHW or NCDHW with that layout, got {layout!r} and "
                         f"shape {list(map(str, data.shape))}")
    methods = ("nearest", "bilinear", "bicubic") if rank == 2 else ("nearest", "bilinear", "trilinear")
    if method not in methods:
        raise ValueError(f"topi.image.grid_sample: method must be one of {methods}, got {method!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"topi.image.grid_sample: padding_mode is 'zeros', 'border' or 'reflection', not "
                         f"{padding_mode!r}")
    if len(grid.shape) != rank + 2 or arith.value_of(grid.shape[1]) != rank:
        raise ValueError(f"topi.image.grid_sample: the grid is (N, {rank}, ...) with {rank} output dimensions, got "
                         f"{list(map(str, grid.shape))}")
    sizes = list(data.shape[2:])  # z, y, x (or y, x)

    def unnormalize(g: Any, size: Any) -> Any:
        if align_corners:
            return (g + 1) * (size - 1) / 2
        return -0.5 + (g + 1) * size / 2

    def clip(c: Any, size: Any) -> Any:
        return te.min(te.max(c, 0), size - 1)

    def reflect(c: Any, size: Any) -> Any:
        span, start = (size - 1, 0.0) if align_corners else (size, -0.5)
        inside = te.all(c >= start, c <= span + start)
        distance = te.abs(start - c)
        times = te.truncdiv(distance.astype("int32"), span).astype("int32")
        extra = distance - (times * span).astype(c.dtype)
        back = te.if_then_else(te.truncmod(times, 2) == 0, extra + start, span - extra + start)
        return te.if_then_else(inside, c, back)

    def padded(c: Any, size: Any) -> Any:
        if padding_mode == "border":
            return clip(c, size)
        if padding_mode == "reflection":
            return clip(reflect(c, size), size)
        return c

    def pixel(n: Any, c: Any, at: list[Any]) -> Any:
        inside = te.all(*[x >= 0 for x in at], *[x < s for x, s in zip(at, sizes)])
        return te.if_then_else(inside, data[(n, c, *at)], arith.const(0.0, data.dtype))

    def coordinates(n: Any, out: tuple) -> list[Any]:
        # the grid holds x first; the image's axes go z, y, x
        return [unnormalize(grid[(n, rank - 1 - k, *out)], sizes[k]) for k in range(rank)]

    def element(n: Any, c: Any, *out: Any) -> Any:
        raw = coordinates(n, out)
        if method == "bicubic":
            return _bicubic(n, c, raw, sizes, padded, pixel, padding_mode)
        at = [padded(x, s) for x, s in zip(raw, sizes)]
        if method == "nearest":
            return pixel(n, c, [te.nearbyint(x).astype("int32") for x in at])
        lows = [te.floor(x).astype("int32") for x in at]
        fracs = [x - low for x, low in zip(at, lows)]
        total = None
        for bits in range(2 ** rank):
            pick = [(bits >> (rank - 1 - k)) & 1 for k in range(rank)]
            weight = None
            for p, f in zip(pick, fracs):
                w = f if p else 1.0 - f
                weight = w if weight is None else weight * w
            term = pixel(n, c, [low + p for low, p in zip(lows, pick)]) * weight
            total = term if total is None else total + term
        return total
    return te.compute((data.shape[0], data.shape[1], *grid.shape[2:]), element, tag="grid_sample")


def _bicubic(n: Any, c: Any, raw: list[Any], sizes: list[Any], padded: Any, pixel: Any, padding_mode: str) -> Any:
    """The 4 x 4 taps around the point, each tap's coordinate padded, rows mixed, then columns."""
    def near(t: Any) -> Any:
        return ((_A + 2) * t - (_A + 3)) * t * t + 1

    def far(t: Any) -> Any:
        return ((_A * t - 5 * _A) * t + 8 * _A) * t - 4 * _A

    def mix(p: list[Any], t: Any) -> Any:
        return p[0] * far(t + 1) + p[1] * near(t) + p[2] * near(1 - t) + p[3] * far(2 - t)

    y, x = raw
    y0, x0 = te.floor(y).astype("int32"), te.floor(x).astype("int32")

    def tap(i: Any, size: Any) -> Any:
        return i if padding_mode == "zeros" else padded(i.astype("float32"), size).astype("int32")
    rows = [mix([pixel(n, c, [tap(y0 - 1 + j, sizes[0]), tap(x0 - 1 + i, sizes[1])]) for i in range(4)], x - x0)
            for j in range(4)]
    return mix(rows, y - y0)
