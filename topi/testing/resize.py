"""NumPy references for resizing (TVM's ``topi.testing.resize1d_python``, ``resize2d_python``
and ``resize3d_python``): each output element read at its mapped coordinate, in float64."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _source(x: int, size: int, out: int, mode: str) -> float:
    """The input coordinate of output coordinate *x*."""
    if mode == "half_pixel":
        return (x + 0.5) * size / out - 0.5
    if mode == "align_corners":
        return (size - 1) / (out - 1) * x if out > 1 else 0.0
    if mode == "asymmetric":
        return x * size / out
    raise ValueError(f"topi.testing.resize: coordinate_transformation_mode {mode!r} is not one of "
                     f"'half_pixel', 'align_corners', 'asymmetric'")


def resize_python(data: np.ndarray, scale: Sequence[float], layout: str, method: str = "nearest_neighbor",
                  coordinate_transformation_mode: str = "align_corners") -> np.ndarray:
    """*data* with the ``len(scale)`` spatial axes (the last of D, H, W) of *layout* scaled
    (sizes rounded): nearest (rounded half up with ``align_corners``, else down) or linear."""
    rank = len(scale)
    letters = [c for c in layout if c.isalpha()]
    axes = [letters.index(a) for a in "DHW"[3 - rank:]]
    moved = np.moveaxis(data, axes, list(range(-rank, 0))).astype("float64")
    sizes = moved.shape[-rank:]
    outs = [int(round(n * s)) for n, s in zip(sizes, scale)]
    linear = method in ("linear", "bilinear", "trilinear")
    if not linear and method != "nearest_neighbor":
        raise ValueError(f"topi.testing.resize: method {method!r} is not 'nearest_neighbor' or 'linear'")
    # Both methods are separable: resize one axis at a time.
    out = moved
    for k, (n, o) in enumerate(zip(sizes, outs)):
        axis = k - rank
        coords = np.array([_source(p, n, o, coordinate_transformation_mode) for p in range(o)])
        if not linear:
            pick = np.floor(coords + 0.5) if coordinate_transformation_mode == "align_corners" else np.floor(coords)
            out = np.take(out, np.clip(pick.astype(int), 0, n - 1), axis=axis)
            continue
        low = np.floor(coords)
        frac = (coords - low).reshape((o,) + (1,) * (-axis - 1))
        low = low.astype(int)
        out = (np.take(out, np.clip(low, 0, n - 1), axis=axis) * (1 - frac)
               + np.take(out, np.clip(low + 1, 0, n - 1), axis=axis) * frac)
    return np.moveaxis(out, list(range(-rank, 0)), axes).astype(data.dtype)


def resize1d_python(data: np.ndarray, scale: Sequence[float], layout: str = "NCW", method: str = "nearest_neighbor",
                    coordinate_transformation_mode: str = "align_corners") -> np.ndarray:
    """:func:`resize_python` of the W axis."""
    return resize_python(data, scale, layout, method, coordinate_transformation_mode)


def resize2d_python(data: np.ndarray, scale: Sequence[float], layout: str = "NCHW",
                    method: str = "nearest_neighbor",
                    coordinate_transformation_mode: str = "align_corners") -> np.ndarray:
    """:func:`resize_python` of the H and W axes (NCHW, NHWC, or NCHW with blocks)."""
    return resize_python(data, scale, layout, method, coordinate_transformation_mode)


def resize3d_python(data: np.ndarray, scale: Sequence[float], layout: str = "NCDHW",
                    method: str = "nearest_neighbor",
                    coordinate_transformation_mode: str = "align_corners") -> np.ndarray:
    """:func:`resize_python` of the D, H and W axes."""
    return resize_python(data, scale, layout, method, coordinate_transformation_mode)
