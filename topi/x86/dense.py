"""TVM's x86 schedules of dense, matmul and batch_matmul: the output tiled (rows by 4, columns
by 16), the tile accumulated in a cache stage with the inner product outside and the columns
vectorized, the row tiles (and batches) in parallel; a bias computed at the tile."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.traverse import new_schedule, traverse_inline
from topi.x86.conv2d import tile_factor
from topi.x86.injective import schedule_injective_from_existing


def _tile(s: te.Schedule, mat: te.Tensor, out: te.Tensor) -> None:
    acc = s.cache_write(mat, "global") if mat == out else mat
    *batch, y, x = s[out].op.axis
    yo, yi = s[out].split(y, factor=tile_factor(out.shape[-2], (4, 2)))
    xo, xi = s[out].split(x, factor=tile_factor(out.shape[-1], (16, 8, 4)))
    s[out].reorder(*batch, yo, xo, yi, xi)
    s[out].parallel(s[out].fuse(*batch, yo) if batch else yo)
    s[out].vectorize(xi)
    s[acc].compute_at(s[out], xo)
    *_, ay, ax = s[acc].op.axis
    (k,) = s[acc].op.reduce_axis
    s[acc].reorder(k, ay, ax)
    s[acc].vectorize(ax)


def _schedule(name: str, tags: tuple[str, ...], outs: Any) -> te.Schedule:
    s, tensors = new_schedule(f"x86.{name}", outs)
    out = tensors[0]

    def visit(op: Any) -> None:
        if op.tag in tags and not s[op].relations:
            _tile(s, op.output(0), out if len(out.shape) == len(op.axis) and not s[out.op].relations
                  else op.output(0))
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
