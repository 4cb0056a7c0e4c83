"""GPU-style schedules on the CPU: a read of warp memory that no thread of the warp wrote, or of
shared memory that no thread of the block wrote, is an UnwrittenReadError on both targets (C
once computed with whatever the memory held; the ports' tests run the correct schedules)."""

from __future__ import annotations

import numpy as np
import pytest

import lower
from lower.backend import TARGETS as TARGETS_BY_NAME

from ..lower.test_threads import _DropBarriers, _row_sum_with_shared_fetch
from ..ports.test_tvm_lower_warp_memory import _rows_in_warps as rows_in_warps
from .isolated import TARGETS


def _rows_in_warps():
    """TVM's test_lower_warp_memory_correct_indices schedule: each warp (a threadIdx.y) fetches
    row 0 of its block's rows, and the consumer reads every row."""
    return rows_in_warps(bind_rows=False)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("target", TARGETS)
def test_a_read_of_warp_memory_no_thread_wrote_raises(exact, target):
    s, A, C = _rows_in_warps()
    a = np.random.default_rng(1).standard_normal((2, 32, 32)).astype("float32")
    with pytest.raises(lower.UnwrittenReadError, match=r"read of A\.warp at flat index 33, which no thread of the warp"):
        lower.build(s, [A, C], exact=exact, target=target)(a, np.zeros((2, 32, 32), "float32"))


@pytest.mark.parametrize("target", TARGETS)
def test_a_read_of_shared_memory_no_thread_of_the_block_wrote_raises(target):
    # A cooperative fetch into shared memory without its barriers: a thread reads tiles the
    # others have not fetched yet (C once read whatever the memory held).
    s, A, B = _row_sum_with_shared_fetch()
    n = 32
    f = lower.lower(s, [A, B])
    kernel = TARGETS_BY_NAME[target](_DropBarriers()(f.body), [f.buffers[t] for t in f.tensors], [])
    a = np.random.default_rng(3).standard_normal((n, n)).astype("float32")
    with pytest.raises(lower.UnwrittenReadError, match=r"read of A\.shared at flat index 1, which no thread of the block"):
        kernel([a, np.zeros(n, "float32")], [], [False, True])
