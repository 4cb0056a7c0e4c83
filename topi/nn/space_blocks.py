"""Blocks of positions moved between space and channels or batch (TVM's ``topi.nn.depth_to_space``,
``space_to_depth``, ``space_to_batch_nd``, ``batch_to_space_nd``): each output element is one
input element, found by splitting an index into block and position."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.nn.pad import pad
from topi.transform.shape import product, tensor
from topi.utils import const_value


def _block(op: str, block_size: Any) -> int:
    if isinstance(block_size, bool) or not isinstance(const_value(block_size), int) or const_value(block_size) < 1:
        raise ValueError(f"topi.nn.{op}: block_size must be a positive int, got {block_size!r}")
    return const_value(block_size)


def _nchw(op: str, data: Any, layout: str) -> tuple[Tensor, bool]:
    data = tensor(f"nn.{op}", data)
    if layout not in ("NCHW", "NHWC") or len(data.shape) != 4:
        raise ValueError(f"topi.nn.{op}: takes a 4-d tensor in layout 'NCHW' or 'NHWC', got layout {layout!r} "
                         f"and shape {list(map(str, data.shape))}")
    return data, layout == "NCHW"


def depth_to_space(data: Tensor, block_size: int, layout: str = "NCHW", mode: str = "DCR") -> Tensor:
    """Channels moved into blocks of ``block_size`` x ``block_size`` positions: output channel c at
    block position (by, bx) reads input channel ``(by * bs + bx) * C' + c`` (*mode* ``"DCR"``) or
    ``c * bs * bs + by * bs + bx`` (``"CRD"``, PyTorch's order, which TVM's documentation calls
    ``"CDR"``: both names are taken)."""
    data, first = _nchw("depth_to_space", data, layout)
    bs = _block("depth_to_space", block_size)
    if mode not in ("DCR", "CRD", "CDR"):
        raise ValueError(f"topi.nn.depth_to_space: mode is 'DCR' or 'CRD' (also called 'CDR'), not {mode!r}")
    n, c, h, w = (data.shape[k] for k in ((0, 1, 2, 3) if first else (0, 3, 1, 2)))
    channels = arith.floordiv(c, bs * bs)

    def element(*i: Any) -> Any:
        b, oc, y, x = (i[k] for k in ((0, 1, 2, 3) if first else (0, 3, 1, 2)))
        at = y % bs * bs + x % bs
        ic = at * channels + oc if mode == "DCR" else oc * (bs * bs) + at
        return data[b, ic, y // bs, x // bs] if first else data[b, y // bs, x // bs, ic]
    shape = (n, channels, h * bs, w * bs) if first else (n, h * bs, w * bs, channels)
    return te.compute(shape, element, name="depth_to_space", tag=tag.INJECTIVE)


def space_to_depth(data: Tensor, block_size: int, layout: str = "NCHW") -> Tensor:
    """Blocks of ``block_size`` x ``block_size`` positions moved into channels (the inverse of
    :func:`depth_to_space` in mode ``"DCR"``): output channel ``(by * bs + bx) * C + c``."""
    data, first = _nchw("space_to_depth", data, layout)
    bs = _block("space_to_depth", block_size)
    n, c, h, w = (data.shape[k] for k in ((0, 1, 2, 3) if first else (0, 3, 1, 2)))

    def element(*i: Any) -> Any:
        b, oc, y, x = (i[k] for k in ((0, 1, 2, 3) if first else (0, 3, 1, 2)))
        at, ic = oc // c, oc % c
        yy, xx = y * bs + at // bs, x * bs + at % bs
        return data[b, ic, yy, xx] if first else data[b, yy, xx, ic]
    shape = (n, c * (bs * bs), h // bs, w // bs) if first else (n, h // bs, w // bs, c * (bs * bs))
    return te.compute(shape, element, name="space_to_depth", tag=tag.INJECTIVE)


def _blocks(op: str, data: Tensor, block_shape: Any, *pairs: tuple[str, Any]) -> list[int]:
    """*block_shape* as ints, checked against *data* and the per-dimension lists of *pairs*."""
    if not isinstance(block_shape, Sequence) or not block_shape:
        raise ValueError(f"topi.nn.{op}: block_shape is a list of one size per spatial dimension, got "
                         f"{block_shape!r}")
    blocks = [_block(op, b) for b in block_shape]
    if len(data.shape) < len(blocks) + 1:
        raise ValueError(f"topi.nn.{op}: {len(blocks)} block sizes need a tensor of at least {len(blocks) + 1} "
                         f"dimensions (batch, then the spatial ones), got {len(data.shape)}")
    for what, values in pairs:
        if not isinstance(values, Sequence) or len(values) != len(blocks) or not all(
                isinstance(const_value(v), int) and const_value(v) >= 0 for v in values):
            raise ValueError(f"topi.nn.{op}: {what} must be {len(blocks)} non-negative ints, got {values!r}")
    return blocks


def space_to_batch_nd(data: Tensor, block_shape: Sequence[int], pad_before: Sequence[int],
                      pad_after: Sequence[int], pad_value: float = 0.0) -> Tensor:
    """The spatial dimensions (after the batch) padded, then cut into blocks: output batch
    ``(k_1 * b_2 ... + k_M) * B + b`` holds the positions ``y_i * b_i + k_i`` of batch b."""
    data = tensor("nn.space_to_batch_nd", data)
    blocks = _blocks("space_to_batch_nd", data, block_shape, ("pad_before", pad_before), ("pad_after", pad_after))
    m = len(blocks)
    rest = len(data.shape) - m - 1
    padded = pad(data, [0, *pad_before, *[0] * rest], [0, *pad_after, *[0] * rest], pad_value)
    for k, (size, b) in enumerate(zip(padded.shape[1:m + 1], blocks)):
        if const_value(size) is not None and const_value(size) % b:
            raise ValueError(f"topi.nn.space_to_batch_nd: spatial dimension {k} padded is {size} long, which its "
                             f"block size {b} must divide; change pad_before or pad_after")
    batch = data.shape[0]

    def element(ob: Any, *i: Any) -> Any:
        b, k = ob % batch, ob // batch
        at = []
        for size in reversed(blocks):
            at.insert(0, k % size)
            k = k // size
        return padded[(b, *(y * size + a for y, size, a in zip(i[:m], blocks, at)), *i[m:])]
    shape = [batch * product(blocks), *(arith.floordiv(e, b) for e, b in zip(padded.shape[1:m + 1], blocks)),
             *data.shape[m + 1:]]
    return te.compute(shape, element, name="space_to_batch_nd", tag=tag.INJECTIVE)


def batch_to_space_nd(data: Tensor, block_shape: Sequence[int], crop_begin_list: Sequence[int],
                      crop_end_list: Sequence[int]) -> Tensor:
    """The inverse of :func:`space_to_batch_nd`: batches gathered back into blocks of space, then
    ``crop_begin_list`` and ``crop_end_list`` positions cut off each spatial dimension.

    :raises ValueError: for a batch the blocks do not divide.
    """
    data = tensor("nn.batch_to_space_nd", data)
    blocks = _blocks("batch_to_space_nd", data, block_shape, ("crop_begin_list", crop_begin_list),
                     ("crop_end_list", crop_end_list))
    m, count = len(blocks), 1
    for b in blocks:
        count *= b
    if const_value(data.shape[0]) is not None and const_value(data.shape[0]) % count:
        raise ValueError(f"topi.nn.batch_to_space_nd: the batch ({data.shape[0]}) must be a multiple of the "
                         f"{count} blocks")
    batch = arith.floordiv(data.shape[0], count)

    def element(b: Any, *i: Any) -> Any:
        full = [y + const_value(c) for y, c in zip(i[:m], crop_begin_list)]
        k: Any = 0
        for f, size in zip(full, blocks):
            k = k * size + f % size
        return data[(k * batch + b, *(f // size for f, size in zip(full, blocks)), *i[m:])]
    shape = [batch, *(e * b - const_value(c0) - const_value(c1) for e, b, c0, c1 in
                      zip(data.shape[1:m + 1], blocks, crop_begin_list, crop_end_list)), *data.shape[m + 1:]]
    return te.compute(shape, element, name="batch_to_space_nd", tag=tag.INJECTIVE)
