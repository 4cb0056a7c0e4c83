"""Scattering updates along one axis into a copy of a tensor (TVM's ``topi.scatter_elements``,
ONNX's ScatterElements): ``out[..., indices[..., k, ...], ...]`` combines ``updates[..., k,
...]``. An extern operation: the copy in parallel, then each line along the axis in parallel,
its updates in order (repeated indices combine in order). Negative indices count from the end.
Indices shorter than the data in other dimensions address it by their multi-index (ONNX's
rule; TVM v0.13's kernel mixes the two layouts there)."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor, extern, ir_builder
from schedule.ir.buffer import decl_buffer
from schedule.ir.dtype import is_float, is_int
from topi.extern_items import each_item
from topi.transform.scatter_nd import COMBINE
from topi.transform.shape import product, ravel, tensor, unravel

REDUCTIONS = {**COMBINE, "mean": lambda old, new: (old + new) / 2}


def scatter_elements(data: Tensor, indices: Tensor, updates: Tensor, axis: int = 0, reduction: str = "update",
                     gpu: bool = False) -> Tensor:
    """*data* with *updates* combined at *indices* along *axis* by *reduction* (``"update"``,
    ``"add"``, ``"mul"``, ``"mean"`` of the old and new value, ``"min"``, ``"max"``). *indices*
    and *updates* share a shape of *data*'s rank. With *gpu* (``topi.cuda.scatter_elements``)
    each element of the copy, and each line of updates, is a GPU thread.

    :raises ValueError: for another reduction, an axis out of range, or shapes that differ.
    """
    data, indices, updates = (tensor("scatter_elements", t) for t in (data, indices, updates))
    ndim = len(data.shape)
    if reduction not in REDUCTIONS:
        raise ValueError(f"topi.scatter_elements: reduction is one of {sorted(REDUCTIONS)}, not {reduction!r}")
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(f"topi.scatter_elements: axis {axis!r} is out of range for {ndim} dimensions")
    if not is_int(indices.dtype) or len(indices.shape) != ndim or [str(d) for d in indices.shape] != [
            str(d) for d in updates.shape]:
        raise ValueError(f"topi.scatter_elements: indices (integers) and updates share a shape of rank {ndim}; got "
                         f"{indices.dtype}{list(map(str, indices.shape))} and {list(map(str, updates.shape))}")
    if reduction == "mean" and not is_float(data.dtype):
        raise ValueError(f"topi.scatter_elements: the 'mean' reduction takes floating-point data, not {data.dtype}")
    axis %= ndim
    combine = REDUCTIONS[reduction]
    extent, after = data.shape[axis], product(data.shape[axis + 1:])
    i_extent, i_after = indices.shape[axis], product(indices.shape[axis + 1:])
    i_lines = product(indices.shape[:axis]) * i_after

    def body(d: Any, idx: Any, upd: Any, out: Any) -> Any:
        ib = ir_builder.create()
        d, idx, upd, out = (ib.buffer_ptr(b) for b in (d, idx, upd, out))
        with ib.new_scope(), each_item(ib, product(data.shape), gpu) as i:
            out[i] = d[i]
        with ib.new_scope(), each_item(ib, i_lines, gpu, "fused") as fused:
            before, inner = fused // i_after, fused % i_after
            # the line's position in data: its multi-index in indices, re-laid in data's strides
            lead = ravel(unravel(before, indices.shape[:axis]), data.shape[:axis])
            trail = ravel(unravel(inner, indices.shape[axis + 1:]), data.shape[axis + 1:])
            with ib.for_range(0, i_extent, "k") as k:
                src = (before * i_extent + k) * i_after + inner
                at = idx[src].astype("int64")
                at = te.if_then_else(at < 0, at + extent.astype("int64"), at)
                dst = (lead.astype("int64") * extent.astype("int64") + at) * after + trail
                out[dst] = combine(out[dst], upd[src])
        return ib.get()

    out = decl_buffer(data.shape, data.dtype, "out_buf")
    return extern([data.shape], [data, indices, updates], lambda ins, outs: body(*ins, outs[0]), dtype=[data.dtype],
                  out_buffers=[out], name=f"scatter_elements.{'gpu' if gpu else 'generic'}",
                  tag="scatter_elements.generic")
