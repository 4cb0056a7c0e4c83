"""TVM's test_te_schedule_lstm, written anew: an LSTM cell as a two-state scan with its gates
inlined, lowered as TVM lowers it and, at a small size, run against a NumPy LSTM."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower

BOTH = pytest.mark.parametrize("exact", [False, True])


def _lstm(num_step: int, num_input: int, num_hidden: int, batch_size: int):
    X = te.placeholder((num_step - 1, batch_size, num_input), name="X")
    Wi2h = te.placeholder((4, num_hidden, num_input), name="Wi2h")
    Wh2h = te.placeholder((4, num_hidden, num_hidden), name="Wh2h")
    s_state_h = te.placeholder((num_step, batch_size, num_hidden), name="state_h")
    s_state_c = te.placeholder((num_step, batch_size, num_hidden), name="state_c")
    s_init_c = te.compute((1, batch_size, num_hidden), lambda *i: 0.0, name="init_c")
    s_init_h = te.compute((1, batch_size, num_hidden), lambda *i: 0.0, name="init_h")
    k = te.reduce_axis((0, num_input), name="ki2h")
    s_i2h = te.compute((num_step, 4, batch_size, num_hidden),
                       lambda t, x, i, j: te.sum(X[t - 1, i, k] * Wi2h[x, j, k], axis=k), name="s_i2h")
    k2 = te.reduce_axis((0, num_hidden), name="kh2h")
    s_h2h = te.compute((num_step, 4, batch_size, num_hidden),
                       lambda t, x, i, j: te.sum(s_state_h[t - 1, i, k2] * Wh2h[x, j, k2], axis=k2), name="s_h2h")
    gates = te.compute(s_i2h.shape, lambda *i: s_i2h(*i) + s_h2h(*i), name="gates")
    gshape = (num_step, batch_size, num_hidden)
    in_gate = te.compute(gshape, lambda t, i, j: te.sigmoid(gates[t, 0, i, j]), name="in_gate")
    in_transform = te.compute(gshape, lambda t, i, j: te.tanh(gates[t, 1, i, j]), name="in_transform")
    forget_gate = te.compute(gshape, lambda t, i, j: te.sigmoid(gates[t, 2, i, j]), name="forget_gate")
    out_gate = te.compute(gshape, lambda t, i, j: te.sigmoid(gates[t, 3, i, j]), name="out_gate")
    next_c = te.compute(gshape, lambda t, i, j: forget_gate[t, i, j] * s_state_c[t - 1, i, j]
                        + in_gate[t, i, j] * in_transform[t, i, j], name="next_c")
    next_h = te.compute(gshape, lambda t, i, j: out_gate[t, i, j] * te.tanh(next_c[t, i, j]), name="next_h")
    update_c = te.compute(gshape, lambda *i: next_c(*i), name="update_c")
    update_h = te.compute(gshape, lambda *i: next_h(*i), name="update_h")
    scan_h, scan_c = te.scan([s_init_h, s_init_c], [update_h, update_c], [s_state_h, s_state_c],
                             inputs=[X], name="lstm_scan")
    s = te.create_schedule(scan_h.op)
    for t in (gates, in_gate, in_transform, forget_gate, out_gate):
        s[t].compute_inline()
    return s, [X, Wi2h, Wh2h, scan_h, scan_c]


def test_lstm_cell_inline_lowers_at_tvm_size():
    s, args = _lstm(128, 256, 1152, 4)
    text = str(lower(s, args))
    assert "produce lstm_scan" in text and "gates" not in text and "in_gate" not in text


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


@BOTH
def test_lstm_cell_runs(exact):
    steps, n_in, n_hidden, batch = 5, 3, 4, 2
    s, args = _lstm(steps, n_in, n_hidden, batch)
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (steps - 1, batch, n_in)).astype("float32")
    wi = rng.uniform(-1, 1, (4, n_hidden, n_in)).astype("float32")
    wh = rng.uniform(-1, 1, (4, n_hidden, n_hidden)).astype("float32")
    h = np.full((steps, batch, n_hidden), np.nan, "float32")
    c = np.full((steps, batch, n_hidden), np.nan, "float32")
    build(s, args, exact=exact)(x, wi, wh, h, c)
    eh, ec = np.zeros((steps, batch, n_hidden)), np.zeros((steps, batch, n_hidden))
    for t in range(1, steps):
        g = np.einsum("ik,xjk->xij", x[t - 1], wi) + np.einsum("ik,xjk->xij", eh[t - 1], wh)
        ec[t] = _sigmoid(g[2]) * ec[t - 1] + _sigmoid(g[0]) * np.tanh(g[1])
        eh[t] = _sigmoid(g[3]) * np.tanh(ec[t])
    np.testing.assert_allclose(h, eh, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c, ec, rtol=1e-5, atol=1e-6)
