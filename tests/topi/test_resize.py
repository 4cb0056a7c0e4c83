"""Upsampling of two and three spatial axes in every coordinate mode against each output
element computed on its own (the mapped coordinate, then the nearest element or the weighted
corners); the topi.testing references against the same."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from topi import testing as ref

RNG = np.random.default_rng(8)


def _by_element(a, outs, mode, linear):
    """Spatial axes last: every output element from its coordinates, corner by corner."""
    rank = len(outs)
    sizes = a.shape[-rank:]
    out = np.zeros(a.shape[:-rank] + tuple(outs))
    for pos in itertools.product(*(range(o) for o in outs)):
        coords = []
        for p, n, o in zip(pos, sizes, outs):
            if mode == "align_corners":
                coords.append((n - 1) / (o - 1) * p if o > 1 else 0.0)
            elif mode == "half_pixel":
                coords.append((p + 0.5) * n / o - 0.5)
            else:
                coords.append(p * n / o)
        if not linear:
            at = [min(max(math.floor(c + 0.5) if mode == "align_corners" else math.floor(c), 0), n - 1)
                  for c, n in zip(coords, sizes)]
            out[(..., *pos)] = a[(..., *at)]
            continue
        for corner in itertools.product((0, 1), repeat=rank):
            w, at = 1.0, []
            for c, n, bit in zip(coords, sizes, corner):
                w *= (c - math.floor(c)) if bit else 1 - (c - math.floor(c))
                at.append(min(max(math.floor(c) + bit, 0), n - 1))
            out[(..., *pos)] += w * a[(..., *at)]
    return out


@pytest.mark.parametrize("mode", ["asymmetric", "align_corners", "half_pixel"])
@pytest.mark.parametrize("method", ["nearest_neighbor", "trilinear"])
@pytest.mark.parametrize("layout", ["NCDHW", "NDHWC"])
def test_upsampling3d_by_element(mode, method, layout):
    a = RNG.standard_normal((1, 2, 3, 4, 5)).astype("float32")
    data = a if layout == "NCDHW" else a.transpose(0, 2, 3, 4, 1).copy()
    A = te.placeholder(data.shape, name="A")
    out = topi.nn.upsampling3d(A, 2.0, 1.5, 1.7, layout, method, mode)
    got = np.full([int(d) for d in out.shape], np.nan, "float32")
    build(te.create_schedule(out.op), [A, out])(data, got)
    got = got if layout == "NCDHW" else got.transpose(0, 4, 1, 2, 3)
    expect = _by_element(a.astype("float64"), (6, 6, 8), mode, method == "trilinear")
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5)
    reference = ref.resize3d_python(data, (2.0, 1.5, 1.7), layout, method[3:] if method != "nearest_neighbor"
                                    else method, mode)
    np.testing.assert_allclose(reference if layout == "NCDHW" else reference.transpose(0, 4, 1, 2, 3), expect,
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method, align", [("nearest_neighbor", False), ("bilinear", False), ("bilinear", True)])
def test_upsampling_of_blocked_channels(method, align):
    a = RNG.standard_normal((2, 3, 4, 5, 2, 4)).astype("float32")  # NCHW2n4c
    A = te.placeholder(a.shape, name="A")
    out = topi.nn.upsampling(A, 2.0, 1.6, "NCHW2n4c", method, align)
    got = np.full([int(d) for d in out.shape], np.nan, "float32")
    build(te.create_schedule(out.op), [A, out])(a, got)
    mode = "align_corners" if align else "asymmetric"
    moved = np.moveaxis(a, [2, 3], [-2, -1]).astype("float64")
    expect = np.moveaxis(_by_element(moved, (8, 8), mode, method == "bilinear"), [-2, -1], [2, 3])
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ref.resize2d_python(a, (2.0, 1.6), "NCHW2n4c", method[2:] if align or
                                                   method == "bilinear" else method, mode), expect,
                               rtol=1e-5, atol=1e-5)


def test_bad_resize_arguments_are_refused():
    A = te.placeholder((1, 2, 3, 4, 5), name="A")
    with pytest.raises(ValueError, match="coordinate_transformation_mode"):
        topi.nn.upsampling3d(A, 2, 2, 2, coordinate_transformation_mode="tf_crop")
    with pytest.raises(ValueError, match="'nearest_neighbor' or 'trilinear'"):
        topi.nn.upsampling3d(A, 2, 2, 2, method="bilinear")
    with pytest.raises(ValueError, match="scale h must be a positive number"):
        topi.nn.upsampling3d(A, 2, 0, 2)
    with pytest.raises(ValueError, match="method"):
        ref.resize3d_python(np.zeros((1, 1, 2, 2, 2)), (2, 2, 2), "NCDHW", "cubic")
