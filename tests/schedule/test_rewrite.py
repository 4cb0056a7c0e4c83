"""Reshape/broadcast rewrites: the patent's patterns fire, move fewer elements, and never
change a result (checked with NumPy through the reference evaluator and built code)."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import Layout, build, reference
from schedule import ops, rewrite

RNG = np.random.default_rng(11)


def values(out, inputs):
    return reference(out, inputs)[out]


@pytest.mark.parametrize("B, H, W, C, G", [(2, 4, 4, 6, 3), (1, 3, 5, 8, 4), (3, 2, 2, 4, 2)])
def test_group_normalization_reduces_before_the_reshape(B, H, W, C, G):
    image = te.placeholder((B, H, W, C), name="image")
    z = ops.reduce(ops.reshape(image, (B, H, W, C // G, G)), None, [1, 2, 3], "add")
    new, report = rewrite.optimize_reshapes(z)
    assert report.reshape_elements_before == B * H * W * C
    assert report.reshape_elements_after == B * C
    assert report.rewrites == [f"reduce(reshape(image)) -> reduce(reshape(reduce(image, [1, 2]), "
                               f"{[B, C // G, G]}), [1])"]
    x = RNG.integers(-5, 6, size=(B, H, W, C)).astype("float32")
    want = x.reshape(B, H, W, C // G, G).sum(axis=(1, 2, 3))
    assert np.array_equal(values(z, {image: x}), want)
    assert np.array_equal(values(new, {image: x}), want)
    assert new.op.tag == "reduce" and new.op.input_tensors[0].op.input_tensors[0].op.tag == "reduce"


def test_max_reductions_split_too_and_sums_with_an_init_do_not():
    x = te.placeholder((2, 3, 4), name="x")
    m = ops.reduce(ops.reshape(x, (2, 3, 2, 2)), None, [1, 2], "max")
    new, report = rewrite.optimize_reshapes(m)
    a = RNG.integers(-9, 9, size=(2, 3, 4)).astype("float32")
    assert report.rewrites and np.array_equal(values(new, {x: a}), a.reshape(2, 3, 2, 2).max(axis=(1, 2)))
    init = te.placeholder((), name="init")
    s = ops.reduce(ops.reshape(x, (2, 3, 2, 2)), init, [1, 2], "add")
    same, report = rewrite.optimize_reshapes(s)
    assert same is s and report.rewrites == []


@pytest.mark.parametrize("y_shape, dims", [((3,), [2]), ((4, 2), [0, 1]), ((2, 3), [1, 2]), ((4,), [0])])
def test_reshape_of_elementwise_over_a_reshape_and_a_broadcast(y_shape, dims):
    X, Y = te.placeholder((4, 6), name="X"), te.placeholder(y_shape, name="Y")
    inner = ops.subtract(ops.reshape(X, (4, 2, 3)), ops.broadcast(Y, (4, 2, 3), dims))
    out = ops.reshape(inner, (4, 6))
    new, report = rewrite.optimize_reshapes(out)
    assert len(report.rewrites) == 1 and report.reshape_elements_after < report.reshape_elements_before
    x = RNG.integers(-5, 6, size=(4, 6)).astype("float32")
    y = RNG.integers(-5, 6, size=y_shape).astype("float32")
    expanded = np.broadcast_to(np.expand_dims(y, [d for d in range(3) if d not in dims]), (4, 2, 3))
    want = (x.reshape(4, 2, 3) - expanded).reshape(4, 6)
    assert np.array_equal(values(out, {X: x, Y: y}), want)
    assert np.array_equal(values(new, {X: x, Y: y}), want)


def test_full_group_normalization_in_every_layout():
    """Mean over groups, subtracted back: both patterns fire; built code agrees in any layout."""
    B, H, W, C, G = 2, 2, 3, 4, 2
    image = te.placeholder((B, H, W, C), name="image")
    grouped = ops.reshape(image, (B, H, W, C // G, G))
    total = ops.reduce(grouped, None, [1, 2, 3], "add")
    centred = ops.subtract(grouped, ops.broadcast(total, (B, H, W, C // G, G), [0, 4]))
    out = ops.reshape(centred, (B, H, W, C))
    new, report = rewrite.optimize_reshapes(out)
    assert len(report.rewrites) == 2
    assert report.reshape_elements_after < report.reshape_elements_before
    x = RNG.integers(-5, 6, size=(B, H, W, C)).astype("float32")
    g = x.reshape(B, H, W, C // G, G)
    want = (g - g.sum(axis=(1, 2, 3))[:, None, None, None, :]).reshape(B, H, W, C)
    assert np.array_equal(values(new, {image: x}), want)
    for layout in ("{3,2,1,0}", "{0,1,2,3}", "{3,2,1,0:(2,2)}"):
        s = te.create_schedule(new.op)
        s[new].set_layout(layout)
        lay = Layout.from_text(layout, (B, H, W, C))
        got = np.zeros(lay.physical_size, "float32")
        build(s, [image, new])(x, got)
        assert np.array_equal(lay.from_physical(got), want), layout


def test_graphs_without_the_patterns_are_left_alone():
    x = te.placeholder((4, 6), name="x")
    z = ops.reduce(ops.reshape(x, (2, 12)), None, [1], "add")  # every reduced dim is reshaped
    same, report = rewrite.optimize_reshapes([z])
    assert same == [z] and report.rewrites == []
    assert report.reshape_elements_before == report.reshape_elements_after == 24
    with pytest.raises(TypeError, match="outputs must be tensors"):
        rewrite.optimize_reshapes([z, "z"])
