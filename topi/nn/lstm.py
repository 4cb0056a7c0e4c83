"""The long short-term memory layer (TVM's ``topi.nn.lstm``) as a ``te.scan`` over time: the
input-to-hidden products for every step at once (``Xi2h``), then per step the hidden-to-hidden
product (``s_h2h``), the four gates in *weight_layout*'s order, the next cell and hidden state
(optionally projected, with peephole connections); the states of steps 1..T are returned."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.transform.shape import tensor


def lstm(Xs: Tensor, Wi: Tensor, Wh: Tensor, Bi: Tensor | None = None, Bh: Tensor | None = None,  # noqa: N803
         h_init: Tensor | None = None, c_init: Tensor | None = None, proj: Tensor | None = None,
         p_i: Tensor | None = None, p_f: Tensor | None = None, p_o: Tensor | None = None,
         f_act: Callable[[Any], Any] = te.sigmoid, g_act: Callable[[Any], Any] = te.tanh,
         h_act: Callable[[Any], Any] = te.tanh, reverse: bool = False, weight_layout: str = "IFGO") -> list[Tensor]:
    """``[hidden_states, cell_states]`` of *Xs* ``(seq, batch, in)`` with weights *Wi* ``(4 *
    hidden, in)`` and *Wh* ``(4 * hidden, out)`` whose four row blocks are the gates in
    *weight_layout* (a permutation of ``"IFGO"``); *proj* ``(out, hidden)`` projects the hidden
    state; *p_i*, *p_f*, *p_o* ``(batch, hidden)`` are peephole weights; *reverse* reads the
    sequence from its end.

    :raises ValueError: for a layout that is not a permutation of IFGO, or weights of other shapes.
    """
    xs, wi, wh = (tensor("nn.lstm", t) for t in (Xs, Wi, Wh))
    if not isinstance(weight_layout, str) or sorted(weight_layout) != sorted("IFGO"):
        raise ValueError(f"topi.nn.lstm: weight_layout must be a permutation of 'IFGO', got {weight_layout!r}")
    gate = {g: weight_layout.index(g) for g in "IFGO"}
    seq, batch, in_dim = xs.shape
    rows = arith.value_of(wi.shape[0])
    if rows is None or rows % 4:
        raise ValueError(f"topi.nn.lstm: Wi has 4 * hidden rows, got {wi.shape[0]}")
    hidden = rows // 4
    out_dim = proj.shape[0] if proj is not None else hidden
    steps = seq + 1
    ki = te.reduce_axis((0, in_dim), name="ki2h")
    xi2h = te.compute((seq * batch, 4 * hidden),
                      lambda tb, ij: te.sum(xs[tb // batch, tb % batch, ki] * wi[ij, ki], axis=ki), name="Xi2h")
    if Bi is not None:
        xi2h = _biased(xi2h, Bi, "Xi2h_bias")
    h_state = te.placeholder((steps, batch, out_dim), name="h_state")
    c_state = te.placeholder((steps, batch, hidden), name="c_state")
    h_start = te.compute((1, batch, out_dim), lambda _, b, i: h_init[b, i] if h_init is not None else 0.0,
                         name="h_init")
    c_start = te.compute((1, batch, hidden), lambda _, b, i: c_init[b, i] if c_init is not None else 0.0,
                         name="c_init")
    kh = te.reduce_axis((0, out_dim), name="kh2h")
    h2h = te.compute((steps, batch, 4, hidden),
                     lambda t, b, i, j: te.sum(h_state[t - 1, b, kh] * wh[i * hidden + j, kh], axis=kh), name="s_h2h")
    if Bh is not None:
        h2h = te.compute(h2h.shape, lambda t, b, i, j: h2h[t, b, i, j] + Bh[i * hidden + j], name="s_h2h_bias",
                         tag=tag.INJECTIVE)

    def step(t: Any) -> Any:
        return seq - t if reverse else t - 1
    gates = te.compute((steps, batch, 4, hidden),
                       lambda t, b, i, j: xi2h[step(t) * batch + b, i * hidden + j] + h2h[t, b, i, j], name="gates",
                       tag=tag.INJECTIVE)
    shape = (steps, batch, hidden)
    peep = p_i is not None and p_f is not None

    def activation(name: str, which: str, act: Callable[[Any], Any], extra: Any = None) -> Tensor:
        def element(t: Any, b: Any, j: Any) -> Any:
            value = gates[t, b, gate[which], j]
            return act(value + extra(t, b, j) if extra is not None else value)
        return te.compute(shape, element, name=name, tag=tag.INJECTIVE)

    i_gate = activation("i_gate_p" if peep else "i_gate", "I", f_act,
                        (lambda t, b, j: p_i[b, j] * c_state[t - 1, b, j]) if peep else None)
    f_gate = activation("f_gate_p" if peep else "f_gate", "F", f_act,
                        (lambda t, b, j: p_f[b, j] * c_state[t - 1, b, j]) if peep else None)
    g_gate = activation("g_gate", "G", g_act)
    next_c = te.compute(shape, lambda t, b, j: f_gate[t, b, j] * c_state[t - 1, b, j] + i_gate[t, b, j]
                        * g_gate[t, b, j], name="next_c")
    o_gate = activation("o_gate_p" if p_o is not None else "o_gate", "O", f_act,
                        (lambda t, b, j: p_o[b, j] * next_c[t, b, j]) if p_o is not None else None)
    next_h = te.compute(shape, lambda t, b, j: o_gate[t, b, j] * h_act(next_c[t, b, j]), name="next_h")
    if proj is not None:
        kr = te.reduce_axis((0, hidden), name="kh2p")
        next_h = te.compute((steps, batch, out_dim), lambda t, b, j: te.sum(next_h[t, b, kr] * proj[j, kr], axis=kr),
                            name="next_h_proj")
    scan_h, scan_c = te.scan([h_start, c_start], [next_h, next_c], [h_state, c_state], name="lstm_scan")
    return [te.compute((seq, batch, out_dim), lambda t, b, j: scan_h[t + 1, b, j], name="hidden_states"),
            te.compute((seq, batch, hidden), lambda t, b, j: scan_c[t + 1, b, j], name="cell_states")]


def _biased(x: Tensor, bias: Tensor, name: str) -> Tensor:
    return te.compute(x.shape, lambda tb, ij: x[tb, ij] + bias[ij], name=name, tag=tag.INJECTIVE)
