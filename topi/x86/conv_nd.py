"""TVM's x86 schedules of the 1-d and 3-d convolutions, grouped or not, in either layout (and
of the blocked conv2d_NCHWc, below):
the output's leading axes in parallel, its last axis in vectors, each vector accumulated in a
cache stage under the whole reduction; a transposed convolution's leading axes in parallel.
An injective epilogue (bias, relu) is the output the accumulator is computed at."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.nn import conv1d_ncw, conv1d_nwc, conv2d_NCHWc, conv3d_ncdhw, conv3d_ndhwc, conv3d_transpose_ncdhw
from topi.traverse import new_schedule, traverse_inline
from topi.x86.conv2d import tile_factor
from topi.x86.injective import parallel_outer, schedule_remaining_outputs

#: The tags of the convolutions scheduled here.
CONV_TAGS = frozenset(f"{g}conv{d}d_{layout}" for g in ("", "group_") for d, layouts in
                      ((1, ("ncw", "nwc")), (2, ("nhwc",)), (3, ("ncdhw", "ndhwc"))) for layout in layouts)
TRANSPOSE_TAGS = frozenset({"conv1d_transpose_ncw", "conv3d_transpose_ncdhw", "group_conv2d_transpose_nchw"})


def _vector_tile(s: te.Schedule, conv: te.Tensor, out: te.Tensor) -> None:
    """*conv* written to *out*: see the module."""
    acc = s.cache_write(conv, "global") if conv == out else conv
    axes = s[out].op.axis
    outer, inner = s[out].split(axes[-1], factor=tile_factor(out.shape[-1], (16, 8, 4, 2)))
    parallel_outer(s, out)
    s[out].vectorize(inner)
    s[acc].compute_at(s[out], outer)
    s[acc].reorder(*s[acc].op.reduce_axis, *s[acc].op.axis)
    s[acc].vectorize(s[acc].op.axis[-1])


def schedule_conv_nd(outs: Any) -> te.Schedule:
    """The schedule of the convolutions of :data:`CONV_TAGS` and :data:`TRANSPOSE_TAGS` (and their
    epilogues), as the module says."""
    s, tensors = new_schedule("x86.schedule_conv_nd", outs)
    out = tensors[0]

    def visit(op: Any) -> None:
        if s[op].relations:
            return
        if op.tag in CONV_TAGS:
            epilogue = len(out.shape) == len(op.output(0).shape) and not s[out.op].relations
            _vector_tile(s, op.output(0), out if epilogue else op.output(0))
        elif op.tag in TRANSPOSE_TAGS:
            parallel_outer(s, op.output(0))
    traverse_inline(s, out.op, visit)
    return schedule_remaining_outputs(s, tensors)


schedule_conv1d_ncw = schedule_conv1d_nwc = schedule_conv_nd
schedule_group_conv1d_ncw = schedule_group_conv1d_nwc = schedule_conv_nd
schedule_conv3d_ncdhw = schedule_conv3d_ndhwc = schedule_conv3d_transpose_ncdhw = schedule_conv_nd




def schedule_conv2d_NCHWc(outs: Any) -> te.Schedule:  # noqa: N802
    """conv2d_NCHWc (and its epilogue): the padding once at the root; the output's batch,
    channel chunks and rows in parallel, a row's columns in tiles accumulated in a cache stage
    under the whole reduction, the output channel block innermost as a vector."""
    s, tensors = new_schedule("x86.schedule_conv2d_NCHWc", outs)
    out = tensors[0]

    def visit(op: Any) -> None:
        if op.tag != "conv2d_NCHWc" or s[op].relations:
            return
        conv = op.output(0)
        padded = op.input_tensors[0]
        if "pad" in padded.op.tag:
            s[padded].parallel(s[padded].fuse(*s[padded].op.axis[:2]))
        target = out if len(out.shape) == 5 and not s[out.op].relations else conv
        acc = s.cache_write(conv, "global") if conv == target else conv
        b, oco, oh, ow, oci = s[target].op.axis
        wo, wi = s[target].split(ow, factor=tile_factor(target.shape[3], (8, 7, 4, 2)))
        s[target].reorder(b, oco, oh, wo, wi, oci)
        s[target].parallel(s[target].fuse(b, oco, oh))
        s[target].vectorize(oci)
        s[acc].compute_at(s[target], wo)
        _, _, _, aw, ab = s[acc].op.axis
        s[acc].reorder(*s[acc].op.reduce_axis, aw, ab)
        s[acc].unroll(aw)
        s[acc].vectorize(ab)
    traverse_inline(s, out.op, visit)
    return schedule_remaining_outputs(s, tensors)


__all__ = ["conv1d_ncw", "conv1d_nwc", "conv2d_NCHWc", "conv3d_ncdhw", "conv3d_ndhwc", "conv3d_transpose_ncdhw",
           "schedule_conv1d_ncw", "schedule_conv1d_nwc", "schedule_conv2d_NCHWc", "schedule_conv3d_ncdhw",
           "schedule_conv3d_ndhwc", "schedule_conv3d_transpose_ncdhw", "schedule_conv_nd",
           "schedule_group_conv1d_ncw", "schedule_group_conv1d_nwc"]
