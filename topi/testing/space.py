"""NumPy references for the operators that move blocks of positions between space, channels
and batch (TVM's ``topi.testing.depth_to_space_python`` ... ``reorg_python``): reshapes and
transposes of the whole array."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def depth_to_space_python(data: np.ndarray, block_size: int, mode: str = "DCR") -> np.ndarray:
    """NCHW *data*'s channels moved into ``block_size`` x ``block_size`` blocks."""
    n, c, h, w = data.shape
    bs = block_size
    if mode == "DCR":
        blocks = data.reshape(n, bs, bs, c // (bs * bs), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        blocks = data.reshape(n, c // (bs * bs), bs, bs, h, w).transpose(0, 1, 4, 2, 5, 3)
    return blocks.reshape(n, c // (bs * bs), h * bs, w * bs)


def space_to_depth_python(data: np.ndarray, block_size: int) -> np.ndarray:
    """NCHW *data*'s ``block_size`` x ``block_size`` blocks moved into channels (rows and columns
    past the last whole block dropped)."""
    n, c, h, w = data.shape
    bs = block_size
    data = data[:, :, :h // bs * bs, :w // bs * bs]
    blocks = data.reshape(n, c, h // bs, bs, w // bs, bs).transpose(0, 3, 5, 1, 2, 4)
    return blocks.reshape(n, c * bs * bs, h // bs, w // bs)


def space_to_batch_nd_python(data: np.ndarray, block_shape: Sequence[int], pad_before: Sequence[int],
                             pad_after: Sequence[int], pad_value: float = 0) -> np.ndarray:
    """The spatial dimensions after the batch padded, cut into blocks, the blocks moved to the batch."""
    m = len(block_shape)
    rest = data.ndim - m - 1
    padded = np.pad(data, [(0, 0), *zip(pad_before, pad_after), *[(0, 0)] * rest], constant_values=pad_value)
    b = data.shape[0]
    split = [b]
    for size, k in zip(padded.shape[1:m + 1], block_shape):
        split += [size // k, k]
    blocks = padded.reshape(*split, *padded.shape[m + 1:])
    order = [2 + 2 * k for k in range(m)] + [0] + [1 + 2 * k for k in range(m)] + list(range(1 + 2 * m, blocks.ndim))
    return blocks.transpose(order).reshape(b * int(np.prod(block_shape)), *split[1::2], *padded.shape[m + 1:])


def batch_to_space_nd_python(data: np.ndarray, block_shape: Sequence[int], crop_begin_list: Sequence[int],
                             crop_end_list: Sequence[int]) -> np.ndarray:
    """The inverse of :func:`space_to_batch_nd_python`, then the crops cut off."""
    m = len(block_shape)
    b = data.shape[0] // int(np.prod(block_shape))
    blocks = data.reshape(*block_shape, b, *data.shape[1:])
    order = [m] + [k for j in range(m) for k in (m + 1 + j, j)] + list(range(2 * m + 1, blocks.ndim))
    spatial = [s * k for s, k in zip(data.shape[1:m + 1], block_shape)]
    full = blocks.transpose(order).reshape(b, *spatial, *data.shape[m + 1:])
    return full[(slice(None), *(slice(c0, s - c1) for s, c0, c1 in zip(spatial, crop_begin_list, crop_end_list)))]


def reorg_python(a_np: np.ndarray, stride: int) -> np.ndarray:
    """Darknet's reorg: *a_np* read as ``(n, c / s^2, h * s, w * s)``, each block position of it
    gathered into channels."""
    n, c, h, w = a_np.shape
    s, per = stride, c // (stride * stride)
    blocks = a_np.reshape(n, per, h, s, w, s).transpose(0, 3, 5, 1, 2, 4)
    return blocks.reshape(n, c, h, w).reshape(n, c * s * s, h // s, w // s)
