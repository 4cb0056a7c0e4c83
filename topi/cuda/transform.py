"""TVM's CUDA forms of the transforms that write where their input says
(``topi.cuda.scatter_elements``, ``invert_permutation``): GPU threads over the elements; and
TVM's CUDA schedule of a 2-d transpose (``schedule_transpose``), tiled through shared memory."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi.transform import scatter_elements as _scatter_elements
from topi.transform.scatter import invert_permutation as _invert_permutation
from topi.traverse import as_outputs, traverse_inline


def scatter_elements(data: Tensor, indices: Tensor, updates: Tensor, axis: int = 0, reduction: str = "update") -> Any:
    """:func:`topi.scatter_elements` with the copy and each line of updates a GPU thread."""
    return _scatter_elements(data, indices, updates, axis, reduction, gpu=True)


def invert_permutation(data: Tensor) -> Tensor:
    """:func:`topi.invert_permutation` with a GPU thread per element."""
    return _invert_permutation(data, gpu=True)


def schedule_transpose(outs: Any) -> te.Schedule:
    """TVM's CUDA schedule of an unfused 2-d transpose: 32x32 tiles a block, read through
    shared memory a row at a time and written a column at a time, four warps a block."""
    tensors = as_outputs("cuda.schedule_transpose", outs)
    s = te.create_schedule([t.op for t in tensors])
    schedule_transpose_from_existing(s, tensors[0])
    return s


def schedule_transpose_from_existing(s: te.Schedule, out: Tensor) -> te.Schedule:
    """In *s*: each 2-d transpose *out* reads as tiles through shared memory (see
    :func:`schedule_transpose`)."""
    warp = 32

    def visit(op: Any) -> None:
        if len(op.axis) != 2 or len(op.input_tensors) != 1:
            return
        m, n = s[op].op.axis
        no, ni = s[op].split(n, factor=warp)
        mo, mi = s[op].split(m, factor=warp)
        s[op].reorder(mo, no, mi, ni)
        s[op].bind(mo, te.thread_axis("blockIdx.x"))
        s[op].bind(no, te.thread_axis("blockIdx.y"))
        tile = s.cache_read(op.input_tensors[0], "shared", [op])
        s[tile].compute_at(s[op], no)
        thread_x, thread_y = te.thread_axis("threadIdx.x"), te.thread_axis("threadIdx.y")
        s[op].bind(ni, thread_x)
        columns, _ = s[tile].split(s[tile].op.axis[1], factor=1)
        s[tile].bind(columns, thread_x)
        rows, _ = s[op].split(mi, nparts=4)
        s[op].bind(rows, thread_y)
        tile_rows, _ = s[tile].split(s[tile].op.axis[0], nparts=4)
        s[tile].bind(tile_rows, thread_y)

    traverse_inline(s, out.op, lambda op: visit(op) if "transpose" in op.name or op.tag == "injective" else None)
    return s
