"""TVM's x86 schedules of the binary operators: the packing's leading axes in parallel; the
binary dense's rows in parallel, each output's popcount sum computed where it is used."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.traverse import new_schedule
from topi.x86.injective import parallel_outer


def schedule_binarize_pack(outs: Any) -> te.Schedule:
    """Each output's leading axes in parallel."""
    s, tensors = new_schedule("x86.schedule_binarize_pack", outs)
    for t in tensors:
        parallel_outer(s, t)
    return s


def schedule_binary_dense(outs: Any) -> te.Schedule:
    """The output's rows in parallel, its popcount sum computed at each output element."""
    s, tensors = new_schedule("x86.schedule_binary_dense", outs)
    for out in tensors:
        inner = [t for t in out.op.input_tensors if t.op.tag == "binary_dense"]
        parallel_outer(s, out)
        for t in inner:
            s[t].compute_at(s[out], s[out].op.axis[-1])
    return s
