"""Any storage scope TVM accepts lowers and runs: a rank name and an optional tag."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("scope, copies", [("wmma.matrix_a", "thread"), ("local.acc", "thread"),
                                           ("shared.dyn", "block"), ("global.texture", "launch")])
def test_a_tagged_scope_is_stored_as_its_rank_says(scope, copies, exact):
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
