"""Programs thousands of levels deep infer, lower, print and build at Python's default recursion limit."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import schedule as te
from bound import infer_bound
from lower import build, lower

N = 1000
LENGTH = 8


def _chain(placement: str):
    A = te.placeholder((LENGTH,), name="A")
    stages = []
    T = A
    for k in range(N):
        T = (lambda P, k=k: te.compute((LENGTH,), lambda i: P[i] + 1, name=f"T{k}"))(T)
        stages.append(T)
    s = te.create_schedule(T.op)
    for producer, consumer in zip(stages, stages[1:]):
        if placement == "at":
            s[producer].compute_at(s[consumer], consumer.op.axis[0])
        elif placement == "inline":
            s[producer].compute_inline()
    return s, A, T


def _deep_expression():
    A = te.placeholder((LENGTH,), name="A")

    def body(i):
        e = A[i]
        for k in range(N):
            e = e + 1 if k % 2 else te.max(e, A[i]) + 1  # nested max and add, 1000+ levels
        return e
    C = te.compute((LENGTH,), body, name="C")
    return te.create_schedule(C.op), A, C


@pytest.fixture(autouse=True)
def _default_recursion_limit():
    assert sys.getrecursionlimit() <= 1000, "these tests must run at Python's default recursion limit"


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("make", ["at", "root", "inline", "expr"])
def test_a_thousand_levels_infer_lower_print_and_build(make, exact):
    s, A, C = _deep_expression() if make == "expr" else _chain(make)
    bounds = infer_bound(s, exact=exact)
    assert int(bounds[C.op.axis[0]].extent) == LENGTH
    text = str(lower(s, [A, C], exact=exact))
    depth = max(len(line) - len(line.lstrip()) for line in text.splitlines()) // 2
    assert text.count("produce ") == (1 if make in ("inline", "expr") else N)
    if make == "at":  # each producer inside its consumer's loop
        assert depth > N
    elif make == "root":
        # every intermediate works in place on its producer's storage: one buffer (StorageRewrite)
        assert text.count("allocate ") == 1 and depth < 10
    elif make == "expr":
        assert text.count("max(") == N // 2
    a = np.arange(LENGTH, dtype="float32")
    c = np.full(LENGTH, np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, a + N)
