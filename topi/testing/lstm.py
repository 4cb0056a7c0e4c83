"""The NumPy reference of the LSTM layer (TVM's ``topi.testing.lstm_python``): the recurrence
step by step in float64."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def lstm_python(Xs: np.ndarray, Wi: np.ndarray, Wh: np.ndarray, Bi: np.ndarray | None = None,  # noqa: N803
                Bh: np.ndarray | None = None, h_init: np.ndarray | None = None, c_init: np.ndarray | None = None,
                proj: np.ndarray | None = None, p_i: np.ndarray | None = None, p_f: np.ndarray | None = None,
                p_o: np.ndarray | None = None, f_act: Callable[[np.ndarray], np.ndarray] = _sigmoid,
                g_act: Callable[[np.ndarray], np.ndarray] = np.tanh,
                h_act: Callable[[np.ndarray], np.ndarray] = np.tanh, reverse: bool = False,
                weight_layout: str = "IFGO") -> tuple[np.ndarray, np.ndarray]:
    """The hidden and cell states of every step (see ``topi.nn.lstm``)."""
    seq, batch, _ = Xs.shape
    hidden = Wi.shape[0] // 4
    out_dim = proj.shape[0] if proj is not None else hidden
    h = np.zeros((batch, out_dim)) if h_init is None else h_init.astype("float64")
    c = np.zeros((batch, hidden)) if c_init is None else c_init.astype("float64")
    blocks = {g: slice(k * hidden, (k + 1) * hidden) for k, g in enumerate(weight_layout)}
    hs, cs = [], []
    for t in range(seq):
        x = Xs[seq - 1 - t if reverse else t].astype("float64")
        total = x @ Wi.T.astype("float64") + h @ Wh.T.astype("float64")
        if Bi is not None:
            total = total + Bi
        if Bh is not None:
            total = total + Bh
        pre = {g: total[:, s] for g, s in blocks.items()}
        i = f_act(pre["I"] + (p_i * c if p_i is not None else 0))
        f = f_act(pre["F"] + (p_f * c if p_f is not None else 0))
        c = f * c + i * g_act(pre["G"])
        o = f_act(pre["O"] + (p_o * c if p_o is not None else 0))
        h = o * h_act(c)
        if proj is not None:
            h = h @ proj.T.astype("float64")
        hs.append(h)
        cs.append(c)
    return np.stack(hs).astype(Xs.dtype), np.stack(cs).astype(Xs.dtype)
