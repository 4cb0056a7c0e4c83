"""Cumulative sums and products (TVM's ``topi.cumsum``, ``topi.cumprod``): extern operations
whose ``ir_builder`` body runs every line along the axis in parallel, each line a serial
running sum (or product) in the output type; ``exclusive`` shifts each line by one, starting
from the identity."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from schedule.ir.buffer import decl_buffer
from schedule.ir.dtype import check_dtype
from topi.transform.shape import product, reshape, tensor


def _scan(op: str, data: Tensor, combine: Callable[[Any, Any], Any], identity: int, axis: int | None,
          dtype: str | None, exclusive: bool | None) -> Tensor:
    data = tensor(op, data)
    if axis is None:  # the flattened array, as NumPy's
        data, axis = reshape(data, (product(data.shape),)), 0
    if isinstance(axis, bool) or not isinstance(axis, int) or not -len(data.shape) <= axis < len(data.shape):
        raise ValueError(f"topi.{op}: axis {axis!r} is out of range for {len(data.shape)} dimensions")
    axis %= len(data.shape)
    out_dtype = check_dtype(dtype) if dtype else data.dtype
    length = data.shape[axis]
    after = product(data.shape[axis + 1:])
    lines = arith.mul(product(data.shape[:axis]), after)

    def body(src: Any, dst: Any) -> Any:
        ib = ir_builder.create()
        src, dst = ib.buffer_ptr(src), ib.buffer_ptr(dst)
        with ib.for_range(0, lines, "fused", kind="parallel") as fused:
            base = fused // after * length * after + fused % after
            with ib.if_scope(length > 0):
                dst[base] = arith.const(identity, out_dtype) if exclusive else src[base].astype(out_dtype)
            with ib.for_range(0, length - 1, "_k") as k:
                at = base + (k + 1) * after
                before = base + k * after
                dst[at] = combine(dst[before], src[before if exclusive else at].astype(out_dtype))
        return ib.get()

    out = decl_buffer(data.shape, out_dtype, "out_buf")
    return extern([data.shape], [data], lambda ins, outs: body(ins[0], outs[0]), dtype=[out_dtype],
                  out_buffers=[out], name=f"{op}_generic", tag=op)


def cumsum(data: Tensor, axis: int | None = None, dtype: str | None = None, exclusive: bool | None = None) -> Tensor:
    """The running sum of *data* along *axis* (of the flattened array without one), in *dtype*
    (by default *data*'s); *exclusive*: each element the sum of those before it (0 first)."""
    return _scan("cumsum", data, lambda a, b: a + b, 0, axis, dtype, exclusive)


def cumprod(data: Tensor, axis: int | None = None, dtype: str | None = None, exclusive: bool | None = None) -> Tensor:
    """The running product of *data* along *axis*, as :func:`cumsum` (1 first when *exclusive*)."""
    return _scan("cumprod", data, lambda a, b: a * b, 1, axis, dtype, exclusive)
