"""TVM's x86 schedules of dense, matmul and batch_matmul.

A dense of known shape whose output columns come in vectors (16 or 8) is TVM's dense_pack:
each parallel block of columns copies its rows of the weight transposed (a cache stage stored
permuted), and 8 rows by a vector of columns accumulate in registers; a bias after it is
computed at the tile. The others are TVM's dense_nopack: the inner product factored into 16
lanes along the operands' contiguous axis, each 4 x 4 tile of outputs accumulating its lanes in
registers, the tiles (and batches) in parallel, a bias after it as injective."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.traverse import new_schedule, traverse_inline
from topi.utils import const_value
from topi.x86.conv2d import tile_factor
from topi.x86.injective import schedule_remaining_outputs


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


def _column_vector(mat: te.Tensor) -> int | None:
    """The output columns per vector of a dense of known shape, if they come in vectors."""
    if mat.op.tag != "dense" or any(const_value(d) is None for d in (*mat.shape, *mat.op.input_tensors[1].shape)):
        return None
    return next((v for v in (16, 8) if const_value(mat.shape[1]) % v == 0), None)


def _pack_tile(s: te.Schedule, mat: te.Tensor, out: te.Tensor, vector: int) -> None:
    """TVM's dense_pack, as the module says; *out* is *mat* or its element-wise epilogue."""
    weights = s.cache_read(mat.op.input_tensors[1], "global", [mat])
    acc = s.cache_write(mat, "global") if mat == out else mat
    i, j = s[out].op.axis
    jo, ji = s[out].split(j, factor=vector)
    io, ii = s[out].split(i, factor=tile_factor(out.shape[0], (8, 4, 2)))
    s[out].reorder(jo, io, ii, ji)
    s[out].parallel(jo)
    s[out].vectorize(ji)
    packed = s[weights].transform_layout(lambda n, k: [k, n])
    s[weights].compute_at(s[out], jo)
    s[weights].vectorize(packed[-1])
    s[acc].compute_at(s[out], io)
    ai, aj = s[acc].op.axis
    s[acc].reorder(*s[acc].op.reduce_axis, ai, aj)
    s[acc].unroll(ai)
    s[acc].vectorize(aj)


def _schedule(name: str, tags: tuple[str, ...], outs: Any) -> te.Schedule:
    s, tensors = new_schedule(f"x86.{name}", outs)
    out = tensors[0]

    def visit(op: Any) -> None:
        if op.tag not in tags or s[op].relations:
            return
        mat = op.output(0)
        vector = _column_vector(mat)
        if vector is None:
            _tile(s, mat)
            return
        epilogue = out != mat and len(out.shape) == 2 and not s[out.op].relations and \
            all(const_value(a) == const_value(b) for a, b in zip(out.shape, mat.shape))
        _pack_tile(s, mat, out if epilogue else mat, vector)
    traverse_inline(s, out.op, visit)
    return schedule_remaining_outputs(s, tensors)


def schedule_dense(outs: Any) -> te.Schedule:
    """dense and matmul (with a bias)."""
    return _schedule("schedule_dense", ("dense", "matmul"), outs)


def schedule_batch_matmul(outs: Any) -> te.Schedule:
    """batch_matmul: batches and row tiles fused in parallel."""
    return _schedule("schedule_batch_matmul", ("batch_matmul",), outs)
