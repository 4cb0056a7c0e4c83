"""Prefetch hints, as TVM's ``s[B].prefetch`` and its storage-flattening test: the region the
next iteration reads, fetched a cache line at a time; a run computes the same values."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import lower
from lower.ir.stmt import Evaluate, For, Load, Prefetch
from lower.ir.stmt_functor import StmtVisitor
from lower.passes.prefetch import prefetch_calls
from schedule.ir.arith import value_of
from schedule.ir.itervar import Range

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])


def test_flatten_prefetch_fetches_cache_lines():
    """TVM's test_flatten_prefetch: a 2 x 8 x 4 box of float32 in a 25 x 100 x 4 tensor; a
    line holds 16 elements, four rows of the innermost dimension, so two lines per row pair."""
    A = te.placeholder((25, 100, 4), name="A")
    i, j = te.var("i"), te.var("j")
    p = Prefetch(A, (Range.from_min_extent(i, 2), Range.from_min_extent(j, 8), Range.from_min_extent(0, 4)))
    loads = []

    def load(indices):
        loads.append(list(indices))
        return Load(None, indices[0] * 400 + indices[1] * 4 + indices[2], ())  # type: ignore[arg-type]
    stmt = prefetch_calls(p, load)
    assert isinstance(stmt, For) and value_of(stmt.extent) == 2
    assert isinstance(stmt.body, For) and value_of(stmt.body.extent) == 2
    assert isinstance(stmt.body.body, Evaluate) and stmt.body.body.value.name == "prefetch"
    # One address per line: rows i + p0, columns j + 4 * p1, the innermost dimension at 0.
    (indices,) = loads
    outer, inner = stmt.loop_var, stmt.body.loop_var
    env = {i: 5, j: 10}
    fetched = {tuple(int(_eval(x, {**env, outer: a, inner: b})) for x in indices) for a in range(2) for b in range(2)}
    assert fetched == {(5, 10, 0), (5, 14, 0), (6, 10, 0), (6, 14, 0)}


def _eval(e, env):
    from schedule.ir.evaluate import evaluate

    return evaluate(e, env)


class _Prefetches(StmtVisitor):
    def __init__(self):
        self.calls = []

    def visit_evaluate(self, s):
        if getattr(s.value, "name", None) == "prefetch":
            self.calls.append(s.value)


@BOTH
def test_prefetch_the_next_block_of_rows(exact):
    n = 64
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] * 2, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=4)
    s[B].prefetch(A, xo, 1)
    f = lower(s, [A, B], exact=exact)
    text = str(f)
    # Iteration i.outer fetches the rows of i.outer + 1: 4 rows of 4 lines of 16 floats each.
    assert "for (prefetch.A.0, 0, 4)" in text and "for (prefetch.A.1, 0, 4)" in text
    assert "prefetch(address_of(A[((((i.outer*256) + (prefetch.A.0*64)) + (prefetch.A.1*16)) + 256)]), 0, 3, 1)" \
        in text
    assert text.index("prefetch(") < text.index("for (i.inner")
    visitor = _Prefetches()
    visitor(f.body)
    assert len(visitor.calls) == 1
    # The last iteration's hint points past the end of A; a hint is never read, so the run is fine.
    a = random((n, n), seed=1)
    (b,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(b, a * 2)


@BOTH
def test_prefetch_inside_a_consumer_of_a_cache(exact):
    A = te.placeholder((32, 48), name="A")
    k = te.reduce_axis((0, 48), name="k")
    B = te.compute((32,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=16)
    s[B].prefetch(A, ko, 2)
    text = str(lower(s, [A, B], exact=exact))
    assert "prefetch(address_of(A[" in text
    a = random((32, 48), seed=2)
    (b,) = run(s, [A, B], [a], exact)
    np.testing.assert_array_equal(b, a.sum(axis=1))


def test_prefetch_rejects_bad_arguments():
    A = te.placeholder((8,), name="A")
    C = te.placeholder((8,), name="C")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=2)
    with pytest.raises(te.ScheduleError, match="does not read"):
        s[B].prefetch(C, xo, 1)
    with pytest.raises(te.ScheduleError, match="already split"):
        s[B].prefetch(A, B.op.axis[0], 1)
    with pytest.raises(TypeError, match="offset"):
        s[B].prefetch(A, xo, 1.5)
    with pytest.raises(TypeError, match="tensor to prefetch"):
        s[B].prefetch("A", xo, 1)
    assert not s[B].iter_var_attrs
