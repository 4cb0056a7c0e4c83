"""The workloads of ``bench_topi.py``, shared with the TVM side (``tvm_metaschedule_topi.py``):
ResNet-18's 3x3 convolutions (stride 1, batch 1, NCHW), a 1024 x 1024 dense, and a softmax
over 1024 rows of 1024. Each builds its compute with the topi module it is given (ours or
TVM's), so both sides compute the same function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: name -> (input shapes, build(topi, te, *placeholders) -> output)
WORKLOADS: dict[str, tuple[list[tuple[int, ...]], Callable[..., Any]]] = {
    **{f"conv2d_{c}x{hw}": ([(1, c, hw, hw), (c, c, 3, 3)],
                           lambda topi, te, A, W: topi.nn.conv2d_nchw(A, W, 1, 1, 1))
       for c, hw in ((64, 56), (128, 28), (256, 14), (512, 7))},
    "dense_1024": ([(1024, 1024), (1024, 1024)], lambda topi, te, X, W: topi.nn.dense(X, W)),
    "softmax_1024": ([(1024, 1024)], lambda topi, te, X: topi.nn.softmax(X)),
}
