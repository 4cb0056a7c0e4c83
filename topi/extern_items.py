"""The loop an extern operation's ``ir_builder`` body runs its independent items in: a
parallel loop on the CPU, or blocks of threads (``blockIdx.x``, ``threadIdx.x``, one item a
thread, no more threads a block than items) for a GPU, as TVM's CUDA externs bind them. On a
GPU each such loop is a kernel of its own when opened in its own ``ib.new_scope()``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import schedule as te
from schedule.ir import arith
from topi.traverse import max_threads


@contextmanager
def each_item(ib: Any, count: Any, gpu: bool, name: str = "i") -> Iterator[Any]:
    """Run the body once per item ``0 <= i < count``, yielding ``i``."""
    if not gpu:
        with ib.for_range(0, count, name, kind="parallel") as i:
            yield i
        return
    known = arith.value_of(count)
    threads = max_threads() if known is None else max(1, min(max_threads(), known))
    tx, bx = te.thread_axis("threadIdx.x"), te.thread_axis("blockIdx.x")
    ib.scope_attr(bx, "thread_extent", arith.floordiv(arith.add(count, threads - 1), threads))
    ib.scope_attr(tx, "thread_extent", threads)
    i = bx.var * threads + tx.var
    with ib.if_scope(i < count):
        yield i
