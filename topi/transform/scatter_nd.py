"""Scattering updates into a copy of a tensor at indices taken from data (TVM's
``topi.scatter_nd``): an extern operation whose ``ir_builder`` body copies the tensor in
parallel, then combines the updates one after another, so that repeated indices combine in
order. Indices outside the tensor are caught by the kernel's checks."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from schedule.ir.buffer import decl_buffer
from schedule.ir.dtype import is_int
from topi.transform.shape import product, tensor

COMBINE = {"update": lambda old, new: new, "add": lambda old, new: old + new, "mul": lambda old, new: old * new,
            "min": lambda old, new: te.min(old, new), "max": lambda old, new: te.max(old, new)}


def scatter_nd(data: Tensor, indices: Tensor, updates: Tensor, mode: str) -> Tensor:
    """*data* with ``updates[y..., x...]`` combined into ``out[indices[0, y...], ...,
    indices[M-1, y...], x...]`` by *mode* (``"update"``, ``"add"``, ``"mul"``, ``"min"``,
    ``"max"``), one update after another in row-major order of ``y`` (the last one wins for
    ``"update"``). An extern operation: the copy of *data* in parallel, the updates serial.

    :raises ValueError: for another mode or shapes that do not fit (``indices`` is ``(M, Y...)``,
        ``updates`` ``(Y..., X...)`` with ``X`` the last dimensions of *data* after the first M).
    """
    data, indices, updates = (tensor("scatter_nd", t) for t in (data, indices, updates))
    if mode not in COMBINE:
        raise ValueError(f"topi.scatter_nd: mode is one of {sorted(COMBINE)}, not {mode!r}")
    if not indices.shape or not is_int(indices.dtype):
        raise ValueError(f"topi.scatter_nd: indices are integers of shape (M, Y...), got {indices.dtype}"
                         f"{list(map(str, indices.shape))}")
    m = arith.value_of(indices.shape[0])
    ys = indices.shape[1:]
    if m is None or m > len(data.shape) or len(updates.shape) != len(ys) + len(data.shape) - m or any(
            arith.value_of(arith.sub(a, b)) not in (0, None) for a, b in
            zip(updates.shape, (*ys, *data.shape[m:]))):
        raise ValueError(f"topi.scatter_nd: updates must have the shape (Y..., X...) = "
                         f"{[*map(str, ys), *map(str, data.shape[m or 0:])]} for indices "
                         f"{list(map(str, indices.shape))} into data {list(map(str, data.shape))}; got "
                         f"{list(map(str, updates.shape))}")
    count, inner = product(ys), product(data.shape[m:])
    strides = [product(data.shape[k + 1:]) for k in range(m)]
    combine = COMBINE[mode]

    def body(d: Any, idx: Any, upd: Any, out: Any) -> Any:
        ib = ir_builder.create()
        d, idx, upd, out = (ib.buffer_ptr(b) for b in (d, idx, upd, out))
        with ib.for_range(0, product(data.shape), "i", kind="parallel") as i:
            out[i] = d[i]
        with ib.for_range(0, count, "y") as y:
            with ib.for_range(0, inner, "x") as x:
                at: Any = x
                for k, stride in enumerate(strides):
                    at = at + idx[y + k * count].astype(at.dtype) * stride
                out[at] = combine(out[at], upd[y * inner + x].astype(data.dtype))
        return ib.get()

    out = decl_buffer(data.shape, data.dtype, "out_buf")
    return extern([data.shape], [data, indices, updates], lambda ins, outs: body(*ins, outs[0]), dtype=[data.dtype],
                  out_buffers=[out], name="scatter_nd_generic", tag="scatter_nd_generic")
