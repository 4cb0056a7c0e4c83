"""Binary neural networks (TVM's ``topi.nn.binarize_pack`` and ``binary_dense``): signs packed
32 to a ``uint32`` word (the first element in the highest bit), and the dot product of two
packed sign vectors, ``32 * words - 2 * popcount(a ^ b)``, as a float."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.transform.shape import tensor
from topi.utils import const_value


def binarize_pack(data: Tensor, axis: int | None = None, name: str = "PackedInput") -> Tensor:
    """The signs of *data* (``x >= 0`` is 1) along *axis* (the last by default), 32 to a word.

    :raises ValueError: for an axis whose extent is not a constant multiple of 32.
    """
    data = tensor("nn.binarize_pack", data)
    ndim = len(data.shape)
    axis = ndim - 1 if axis is None else axis
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(f"topi.nn.binarize_pack: axis {axis!r} is out of range for {ndim} dimensions")
    axis %= ndim
    extent = const_value(data.shape[axis])
    if extent is None or extent % 32:
        raise ValueError(f"topi.nn.binarize_pack: axis {axis} has {data.shape[axis]} elements, which must be a "
                         f"constant multiple of 32")
    shape = [d if k != axis else arith.const(extent // 32) for k, d in enumerate(data.shape)]

    def element(*i: Any) -> Any:
        packed: Any = arith.const(0, "uint32")
        for j in range(32):
            at = [x * 32 + j if k == axis else x for k, x in enumerate(i)]
            sign = (data[tuple(at)] >= arith.const(0, data.dtype)).astype("uint32")
            packed = packed | (sign << arith.const(31 - j, "uint32"))
        return packed
    return te.compute(shape, element, name=name, tag="binarize_pack")


def binary_dense(data: Tensor, weight: Tensor) -> Tensor:
    """The dense product of packed sign rows: *data* ``(batch, words)`` and *weight* ``(out,
    words)``, both ``uint32``; float32 ``(batch, out)``.

    :raises ValueError: for operands that are not 2-d ``uint32`` of one word count.
    """
    data, weight = tensor("nn.binary_dense", data), tensor("nn.binary_dense", weight)
    if data.dtype != "uint32" or weight.dtype != "uint32" or len(data.shape) != 2 or len(weight.shape) != 2 or \
            arith.value_of(arith.sub(data.shape[1], weight.shape[1])) not in (0, None):
        raise ValueError(f"topi.nn.binary_dense: takes 2-d uint32 operands (batch, words) and (out, words), got "
                         f"{data.dtype}{list(map(str, data.shape))} and {weight.dtype}{list(map(str, weight.shape))}")
    batch, words = data.shape
    k = te.reduce_axis((0, words), name="k")
    matmul = te.compute((batch, weight.shape[0]), lambda i, j: te.sum(te.popcount(data[i, k] ^ weight[j, k]), axis=k),
                        tag="binary_dense")
    return te.compute(matmul.shape, lambda i, j: (32 * words).astype("float32") - 2.0 * matmul[i, j].astype("float32"),
                      tag=tag.ELEMWISE)
