"""``topi.nn.lstm``, a ``te.scan`` of reductions over time, against its NumPy reference (itself
checked on a step computed by hand), with biases, initial states, projection, peepholes,
reversed sequences and other gate orders, on both targets."""

from __future__ import annotations

import math

import numpy as np
import pytest

import schedule as te
import topi
from lower import build

RNG = np.random.default_rng(47)


def _args(seq, batch, in_dim, hidden, proj=0, bias=True, zero_init=True, peephole=False):
    out = proj or hidden

    def small(*shape):
        return RNG.uniform(-0.5, 0.5, size=shape).astype("float32")
    return [RNG.normal(size=(seq, batch, in_dim)).astype("float32"), small(4 * hidden, in_dim),
            small(4 * hidden, out), small(4 * hidden) if bias else None, small(4 * hidden) if bias else None,
            None if zero_init else RNG.normal(size=(batch, out)).astype("float32"),
            None if zero_init else RNG.normal(size=(batch, hidden)).astype("float32"),
            small(proj, hidden) if proj else None] + ([small(batch, hidden) for _ in range(3)] if peephole
                                                      else [None] * 3)


@pytest.mark.parametrize("shape, options", [
    ((1, 1, 1, 1), {}), ((6, 3, 5, 4), {"zero_init": False, "reverse": True, "weight_layout": "FGOI"}),
    ((4, 2, 3, 6), {"proj": 4, "peephole": True, "weight_layout": "IOGF"}), ((3, 2, 4, 3), {"bias": False})])
def test_lstm_equals_its_reference(shape, options):
    layout, reverse = options.pop("weight_layout", "IFGO"), options.pop("reverse", False)
    arrays = _args(*shape, **options)
    hs, cs = topi.testing.lstm_python(*arrays, reverse=reverse, weight_layout=layout)
    args = [te.placeholder(a.shape, name=f"a{k}") if a is not None else None for k, a in enumerate(arrays)]
    hidden_states, cell_states = topi.nn.lstm(*args, reverse=reverse, weight_layout=layout)
    s = topi.generic.schedule_lstm([hidden_states, cell_states])
    got_h, got_c = np.full(hs.shape, np.nan, "float32"), np.full(cs.shape, np.nan, "float32")
    build(s, [a for a in args if a is not None] + [hidden_states, cell_states])(
        *[a for a in arrays if a is not None], got_h, got_c)
    np.testing.assert_allclose(got_h, hs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_c, cs, rtol=1e-5, atol=1e-6)


def test_the_reference_computes_a_step_as_defined():
    """One step, one unit, no bias, zero state: c = sigmoid(i) * tanh(g), h = sigmoid(o) * tanh(c)."""
    x = np.array([[[0.7]]], "float32")
    wi = np.array([[0.5], [-1.0], [2.0], [0.25]], "float32")  # I, F, G, O
    h, c = topi.testing.lstm_python(x, wi, np.zeros((4, 1), "float32"))

    def sig(v):
        return 1 / (1 + math.exp(-v))
    cell = sig(0.35) * math.tanh(1.4)
    assert c[0, 0, 0] == pytest.approx(cell, rel=1e-6)
    assert h[0, 0, 0] == pytest.approx(sig(0.175) * math.tanh(cell), rel=1e-6)


def test_bad_layouts_and_weights_are_refused():
    X, W = te.placeholder((2, 1, 3)), te.placeholder((8, 3))
    with pytest.raises(ValueError, match="permutation of 'IFGO'"):
        topi.nn.lstm(X, W, te.placeholder((8, 2)), weight_layout="IFGG")
    with pytest.raises(ValueError, match="4 \\* hidden rows"):
        topi.nn.lstm(X, te.placeholder((6, 3)), te.placeholder((6, 2)))
