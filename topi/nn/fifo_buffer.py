"""A FIFO window over a stream (TVM's ``topi.nn.fifo_buffer``): the buffer shifted along an axis
by the new data's length, the data appended at its end."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.transform.shape import tensor


def fifo_buffer(data: Tensor, buffer: Tensor, axis: int) -> Tensor:
    """``concatenate([buffer, data], axis)[len(data):]`` along *axis*: the buffer's shape, its
    oldest ``data.shape[axis]`` entries dropped.

    :raises ValueError: for tensors whose other dimensions differ, or data longer than the buffer.
    """
    data, buffer = tensor("nn.fifo_buffer", data), tensor("nn.fifo_buffer", buffer)
    ndim = len(buffer.shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(f"topi.nn.fifo_buffer: axis {axis!r} is out of range for {ndim} dimensions")
    axis %= ndim
    differ = len(data.shape) != ndim or any(
        k != axis and arith.value_of(arith.sub(a, b)) not in (0, None) for k, (a, b) in
        enumerate(zip(data.shape, buffer.shape)))
    longer = arith.value_of(arith.sub(buffer.shape[axis], data.shape[axis])) if not differ else None
    if differ or (longer is not None and longer < 0):
        raise ValueError(f"topi.nn.fifo_buffer: data {list(map(str, data.shape))} must match the buffer "
                         f"{list(map(str, buffer.shape))} but along axis {axis}, and be no longer there")
    step = data.shape[axis]
    kept = arith.sub(buffer.shape[axis], step)

    def element(*i: Any) -> Any:
        at = i[axis]
        old = [x + step if k == axis else x for k, x in enumerate(i)]
        new = [x - kept if k == axis else x for k, x in enumerate(i)]
        return te.if_then_else(at < kept, buffer[tuple(old)], data[tuple(new)])
    return te.compute(buffer.shape, element, name="new_buffer", tag=tag.INJECTIVE)
