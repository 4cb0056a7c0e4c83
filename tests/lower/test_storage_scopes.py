"""Any storage scope TVM accepts lowers and runs: a rank name and an optional tag."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from schedule.base import packed


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("scope, copies", [("wmma.matrix_a", "thread"), ("local.acc", "thread"),
                                           ("shared.dyn", "block"), ("global.texture", "launch")])
def test_a_tagged_scope_is_stored_as_its_rank_says(scope, copies, exact, monkeypatch):
    # A tag TVM does not know needs its memory described, as TVM's StorageRewrite asks.
    monkeypatch.setattr(packed, "_FUNCS", dict(packed._FUNCS))
    te.register_func("tvm.info.mem.local.acc", lambda: te.MemoryInfo(32, 128, 1 << 20), override=True)
    A = te.placeholder((8, 8), name="A")
    C = te.compute((8, 8), lambda i, j: A[i, j] * 2 + 1, name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, scope, [C])
    bx, tx = s[C].split(C.op.axis[0], factor=4)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    if copies != "launch":
        s[AA].compute_at(s[C], tx if copies == "thread" else bx)
    text = str(lower(s, [A, C], exact=exact))
    assert f'// attr [A.{scope}] storage_scope = "{scope}"' in text
    a = np.arange(64, dtype="float32").reshape(8, 8)
    c = np.full((8, 8), np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, a * 2 + 1)


@pytest.mark.parametrize("scope", ["sharedd", "local.acc2", "Shared", "registers"])
def test_a_scope_neither_tvms_nor_registered_is_refused(scope):
    A = te.placeholder((8,), name="A")
    C = te.compute((8,), lambda i: A[i] * 2, name="C")
    s = te.create_schedule(C.op)
    stages = list(s.stages)
    with pytest.raises(te.ScheduleError, match=rf"cache_read: unknown storage scope '{scope}'; the known scopes are "
                                               r"'global', 'shared', 'warp', 'local'"):
        s.cache_read(A, scope, [C])
    with pytest.raises(te.ScheduleError, match=f"unknown storage scope '{scope}'"):
        s.cache_write(C, scope)
    with pytest.raises(te.ScheduleError, match=f"set_scope: stage 'C' unknown storage scope '{scope}'"):
        s[C].set_scope(scope)
    assert s.stages == stages and s[C].scope == ""
