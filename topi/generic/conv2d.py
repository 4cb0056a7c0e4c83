"""TVM's ``topi.generic.conv2d``: the CPU schedule of an NHWC depthwise convolution that its
users reach by this module's name."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.traverse import new_schedule, traverse_inline


def schedule_depthwise_conv2d_nhwc(outs: Any) -> te.Schedule:
    """The padding inlined into the convolution, the output's axes fused into one loop, and the
    convolution (when an epilogue follows it) computed per element of that loop."""
    s, tensors = new_schedule("generic.conv2d.schedule_depthwise_conv2d_nhwc", outs)
    out = tensors[0]

    def visit(op: Any) -> None:
        if "depthwise_conv2d_nhwc" not in op.tag:
            return
        conv = op.output(0)
        padded = op.input_tensors[0]
        if "pad" in padded.op.tag:
            s[padded].compute_inline()
        fused = s[out].fuse(*s[out].op.axis)
        if conv.op is not out.op:
            s[conv].compute_at(s[out], fused)

    traverse_inline(s, out.op, visit)
    return s
