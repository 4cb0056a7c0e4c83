"""TVM's x86 schedule of the sparse products: the rows of each product (and of a BSR product's
blocks) in parallel; an output after them as injective."""

from __future__ import annotations

from typing import Any

import schedule as te
from topi.traverse import new_schedule, traverse_inline
from topi.x86.injective import parallel_outer, schedule_remaining_outputs


def schedule_sparse_dense(outs: Any) -> te.Schedule:
    """``topi.nn.sparse_dense`` in CSR or BSR form, with its epilogue."""
    s, tensors = new_schedule("x86.schedule_sparse_dense", outs)

    def visit(op: Any) -> None:
        if op.tag.startswith("sparse_dense") and not s[op].relations and not s[op].is_output:
            parallel_outer(s, op.output(0))
    for t in tensors:
        traverse_inline(s, t.op, visit)
    return schedule_remaining_outputs(s, tensors)
