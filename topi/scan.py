"""Cumulative sums and products (TVM's ``topi.cumsum``, ``topi.cumprod`` and the ``scanop``
behind them, with any associative binary operation): extern operations in the output type;
``exclusive`` shifts each line by one, starting from the identity.

On the CPU every line along the axis runs in parallel, each a serial running sum. On a GPU
(``topi.cuda``'s scans) a line of known length is a Hillis-Steele scan whose passes are
kernels, a thread per element adding the element ``2^pass`` before it; sums of floats are then
grouped differently from the serial ones (as TVM's GPU scan groups them), integers equal. A
line of symbolic length is one thread's serial scan."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import schedule as te
from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from schedule.ir.buffer import decl_buffer
from schedule.ir.dtype import check_dtype
from topi.extern_items import each_item
from topi.transform.shape import product, reshape, tensor


def scanop(data: Tensor, binop: Callable[[Any, Any], Any], identity_value: Any, op_name: str,
           axis: int | None = None, dtype: str | None = None, exclusive: bool | None = None,
           gpu: bool = False) -> Tensor:
    """The running *binop* of *data* along *axis* (of the flattened array without one), in
    *dtype* (by default *data*'s); *exclusive*: each element combines those before it
    (*identity_value* first). *binop* must be associative."""
    data = tensor(op_name, data)
    if not callable(binop):
        raise TypeError(f"topi.{op_name}: binop is a function of two expressions, got {binop!r}")
    if axis is None:  # the flattened array, as NumPy's
        data, axis = reshape(data, (product(data.shape),)), 0
    if isinstance(axis, bool) or not isinstance(axis, int) or not -len(data.shape) <= axis < len(data.shape):
        raise ValueError(f"topi.{op_name}: axis {axis!r} is out of range for {len(data.shape)} dimensions")
    axis %= len(data.shape)
    out_dtype = check_dtype(dtype) if dtype else data.dtype
    identity = arith.const(identity_value, out_dtype)
    length = data.shape[axis]
    after = product(data.shape[axis + 1:])
    lines = arith.mul(product(data.shape[:axis]), after)

    def address(line: Any, p: Any) -> Any:
        return line // after * length * after + line % after + p * after

    def serial(ib: Any, src: Any, dst: Any) -> None:
        with each_item(ib, lines, gpu, "fused") as line:
            base = address(line, 0)
            with ib.if_scope(length > 0):
                dst[base] = identity if exclusive else src[base].astype(out_dtype)
            with ib.for_range(0, length - 1, "_k") as k:
                at = base + (k + 1) * after
                before = base + k * after
                dst[at] = binop(dst[before], src[before if exclusive else at].astype(out_dtype))

    def body(src: Any, dst: Any) -> Any:
        ib = ir_builder.create()
        src, dst = ib.buffer_ptr(src), ib.buffer_ptr(dst)
        n, count = arith.value_of(length), arith.value_of(lines)
        if gpu and n is not None and count is not None:
            parallel_scan(ib, src, dst, count, n, address, binop, identity, out_dtype, bool(exclusive))
        else:
            serial(ib, src, dst)
        return ib.get()

    out = decl_buffer(data.shape, out_dtype, "out_buf")
    return extern([data.shape], [data], lambda ins, outs: body(ins[0], outs[0]), dtype=[out_dtype],
                  out_buffers=[out], name=f"{op_name}_{'gpu' if gpu else 'generic'}", tag=op_name)


def parallel_scan(ib: Any, src: Any, dst: Any, lines: int, n: int, address: Callable[[Any, Any], Any],
                   binop: Callable[[Any, Any], Any], identity: Any, dtype: str, exclusive: bool) -> None:
    """A Hillis-Steele scan of each line, each pass a kernel over every element."""
    total = lines * n
    if total == 0:
        return
    steps = [ib.allocate(dtype, (total,), f"scan{k}", "global") for k in range(2)]
    with ib.new_scope(), each_item(ib, total, True, "e") as e:
        steps[0][e] = src[address(e // n, e % n)].astype(dtype)
    a, distance = 0, 1
    while distance < n:
        with ib.new_scope(), each_item(ib, total, True, "e") as e:
            p = e % n
            steps[1 - a][e] = te.if_then_else(p >= distance, binop(steps[a][e - distance], steps[a][e]), steps[a][e])
        a, distance = 1 - a, distance * 2
    with ib.new_scope(), each_item(ib, total, True, "e") as e:
        line, p = e // n, e % n
        if exclusive:
            dst[address(line, p)] = te.if_then_else(p == 0, identity, steps[a][te.max(e - 1, 0)])
        else:
            dst[address(line, p)] = steps[a][e]


def cumsum(data: Tensor, axis: int | None = None, dtype: str | None = None, exclusive: bool | None = None) -> Tensor:
    """The running sum of *data* along *axis* (of the flattened array without one), in *dtype*
    (by default *data*'s); *exclusive*: each element the sum of those before it (0 first)."""
    return scanop(data, lambda a, b: a + b, 0, "cumsum", axis, dtype, exclusive)


def cumprod(data: Tensor, axis: int | None = None, dtype: str | None = None, exclusive: bool | None = None) -> Tensor:
    """The running product of *data* along *axis*, as :func:`cumsum` (1 first when *exclusive*)."""
    return scanop(data, lambda a, b: a * b, 1, "cumprod", axis, dtype, exclusive)


def gpu_cumsum(data: Tensor, axis: int | None = None, dtype: str | None = None,
               exclusive: bool | None = None) -> Tensor:
    """:func:`cumsum` on a GPU (TVM's ``topi.cuda.cumsum``)."""
    return scanop(data, lambda a, b: a + b, 0, "cumsum", axis, dtype, exclusive, gpu=True)


def gpu_cumprod(data: Tensor, axis: int | None = None, dtype: str | None = None,
                exclusive: bool | None = None) -> Tensor:
    """:func:`cumprod` on a GPU (TVM's ``topi.cuda.cumprod``)."""
    return scanop(data, lambda a, b: a * b, 1, "cumprod", axis, dtype, exclusive, gpu=True)


def gpu_scanop(data: Tensor, binop: Callable[[Any, Any], Any], identity_value: Any, op_name: str,
               axis: int | None = None, dtype: str | None = None, exclusive: bool | None = None) -> Tensor:
    """:func:`scanop` on a GPU (TVM's ``topi.cuda.scanop``)."""
    return scanop(data, binop, identity_value, op_name, axis, dtype, exclusive, gpu=True)


def inclusive_scan(data: Tensor, axis: int = -1, output_dtype: str | None = None,
                   binop: Callable[[Any, Any], Any] | None = None, identity_value: Any = 0) -> Tensor:
    """TVM's ``topi.cuda.inclusive_scan``: the running *binop* (a sum by default) along *axis*."""
    return scanop(data, binop or (lambda a, b: a + b), identity_value, "inclusive_scan", axis, output_dtype,
                  False, gpu=True)


def exclusive_scan(data: Tensor, axis: int = -1, return_reduction: bool = False, output_dtype: str | None = None,
                   binop: Callable[[Any, Any], Any] | None = None, identity_value: Any = 0) -> Any:
    """TVM's ``topi.cuda.exclusive_scan``: the exclusive running *binop* along *axis*, and with
    *return_reduction* also each line's total (*data*'s shape without *axis*)."""
    combine = binop or (lambda a, b: a + b)
    out = scanop(data, combine, identity_value, "exclusive_scan", axis, output_dtype, True, gpu=True)
    if not return_reduction:
        return out
    axis %= len(data.shape)
    last = data.shape[axis] - 1
    shape = [d for k, d in enumerate(data.shape) if k != axis]

    def total(*i: Any) -> Any:
        at = (*i[:axis], last, *i[axis:])
        return combine(out(*at), data(*at).astype(out.dtype))
    return out, te.compute(shape, total, name="scan_reduction", tag="injective")
