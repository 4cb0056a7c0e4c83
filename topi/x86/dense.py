"""TVM's x86 schedules of dense, matmul and batch_matmul (its dense_nopack): the inner product
factored into 16 lanes along the operands' contiguous axis, each 4 x 4 tile of outputs
accumulating its lanes in registers, the tiles (and batches) in parallel; a bias after it as
injective."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.traverse import new_schedule, traverse_inline
from topi.x86.conv2d import tile_factor
from topi.x86.injective import schedule_injective_from_existing


def _tile(s: te.Schedule, mat: te.Tensor) -> None:
    """TVM's dense_nopack: the inner product split by 16 and factored, so that a tile of 4 x 4
    outputs accumulates 16 lanes each along the contiguous inner axis of both operands, then
    sums its lanes; the tiles (and batches) in parallel."""
    (k,) = s[mat].op.reduce_axis
    _, ki = s[mat].split(k, factor=tile_factor(k.dom.extent, (16, 8, 4)))
    lanes = s.rfactor(mat, ki, factor_axis=len(mat.op.axis))
    *batch, y, x = s[mat].op.axis
    yo, yi = s[mat].split(y, factor=tile_factor(mat.shape[-2], (4, 2)))
    xo, xi = s[mat].split(x, factor=tile_factor(mat.shape[-1], (4, 2)))
    s[mat].reorder(*batch, yo, xo, yi, xi)
    fused = s[mat].fuse(*batch, yo, xo)
    s[mat].parallel(fused)
    s[mat].unroll(s[mat].op.reduce_axis[0])
    s[lanes].compute_at(s[mat], fused)
    *outer, lane = s[lanes].op.axis
    (ko,) = s[lanes].op.reduce_axis
    cells = s[lanes].fuse(*outer) if len(outer) > 1 else outer[0]
    s[lanes].reorder(ko, cells, lane)
    s[lanes].unroll(cells)
    s[lanes].vectorize(lane)


def _schedule(name: str, tags: tuple[str, ...], outs: Any) -> te.Schedule:
    s, tensors = new_schedule(f"x86.{name}", outs)
    out = tensors[0]

    def visit(op: Any) -> None:
        if op.tag in tags and not s[op].relations:
            _tile(s, op.output(0))
    traverse_inline(s, out.op, visit)
    for t in tensors:
        if not s[t.op].relations:
            schedule_injective_from_existing(s, t)
    return s


def schedule_dense(outs: Any) -> te.Schedule:
    """dense and matmul (with a bias)."""
    return _schedule("schedule_dense", ("dense", "matmul"), outs)


def schedule_batch_matmul(outs: Any) -> te.Schedule:
    """batch_matmul: batches and row tiles fused in parallel."""
    return _schedule("schedule_batch_matmul", ("batch_matmul",), outs)
