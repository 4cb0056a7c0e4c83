"""The workloads of ``bench_topi.py``, shared with the TVM side (``tvm_metaschedule_topi.py``):
ResNet-18's 3x3 convolutions (stride 1, batch 1, NCHW), a 1024 x 1024 dense, and a softmax
over 1024 rows of 1024; and those of ``bench_autoschedule.py`` (``AUTOSCHEDULE``: TVM's
auto-scheduler tutorials' matmul + add and conv2d layer, a dense layer with bias and relu, a
batch_matmul, a layer norm, a larger softmax, with the ResNet-18 convolutions). Each builds
its compute with the topi and te modules it is given (ours or TVM's), so both sides compute the
same function; each of ``AUTOSCHEDULE`` also has its NumPy reference."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

#: name -> (input shapes, build(topi, te, *placeholders) -> output)
WORKLOADS: dict[str, tuple[list[tuple[int, ...]], Callable[..., Any]]] = {
    **{f"conv2d_{c}x{hw}": ([(1, c, hw, hw), (c, c, 3, 3)],
                           lambda topi, te, A, W: topi.nn.conv2d_nchw(A, W, 1, 1, 1))
       for c, hw in ((64, 56), (128, 28), (256, 14), (512, 7))},
    "dense_1024": ([(1024, 1024), (1024, 1024)], lambda topi, te, X, W: topi.nn.dense(X, W)),
    "softmax_1024": ([(1024, 1024)], lambda topi, te, X: topi.nn.softmax(X)),
}


def _matmul_add(topi: Any, te: Any, A: Any, B: Any, D: Any) -> Any:
    k = te.reduce_axis((0, A.shape[1]), name="k")
    mm = te.compute((A.shape[0], B.shape[1]), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")
    return te.compute(mm.shape, lambda i, j: mm[i, j] + D[i, j], name="out")


def _conv(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """A 3x3 convolution, stride 1, padding 1 (im2col and one product)."""
    n, c, h, wd = a.shape
    padded = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.stack([padded[0, :, dy:dy + h, dx:dx + wd] for dy in range(3) for dx in range(3)], axis=1)
    return (w.reshape(w.shape[0], -1) @ cols.reshape(c * 9, h * wd)).reshape(1, w.shape[0], h, wd)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5) * g + b


#: name -> (input shapes, build(topi, te, *placeholders) -> output, NumPy's result of the inputs)
AUTOSCHEDULE: dict[str, tuple[list[tuple[int, ...]], Callable[..., Any], Callable[..., np.ndarray]]] = {
    "matmul_add": ([(1024, 1024)] * 3, _matmul_add, lambda a, b, d: a @ b + d),
    "conv2d_layer": ([(1, 512, 7, 7), (512, 512, 3, 3), (1, 512, 1, 1)],
                     lambda topi, te, A, W, b: topi.nn.relu(topi.add(topi.nn.conv2d_nchw(A, W, 1, 1, 1), b)),
                     lambda a, w, b: np.maximum(_conv(a, w) + b, 0)),
    **{f"resnet18_conv_{c}x{hw}": ([(1, c, hw, hw), (c, c, 3, 3)],
                                   lambda topi, te, A, W: topi.nn.conv2d_nchw(A, W, 1, 1, 1), _conv)
       for c, hw in ((64, 56), (128, 28), (256, 14), (512, 7))},
    "dense_bias_relu": ([(1, 1024), (1024, 1024), (1024,)],
                        lambda topi, te, X, W, b: topi.nn.relu(topi.add(topi.nn.dense(X, W), b)),
                        lambda x, w, b: np.maximum(x @ w.T + b, 0)),
    "batch_matmul": ([(16, 128, 64), (16, 128, 64)], lambda topi, te, X, Y: topi.nn.batch_matmul(X, Y),
                     lambda x, y: x @ y.transpose(0, 2, 1)),
    "layer_norm": ([(4096, 768), (768,), (768,)],
                   lambda topi, te, X, g, b: topi.nn.layer_norm(X, g, b, axis=[1]), _layer_norm),
    "softmax_4096": ([(4096, 1024)], lambda topi, te, X: topi.nn.softmax(X), _softmax),
}
