"""Reads outside the tensor they read are refused before anything runs: at build for constant
shapes (lower returns the IR with a warning, as TVM lowers it), at the call for symbolic ones; exactly, so guarded (padded) reads and computes
needed only in part raise nothing, in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import lower
import schedule as te
from lower.build import build_lowered
from lower.errors import OutsideReadWarning

from .isolated import TARGETS

BOTH = pytest.mark.parametrize("exact", [False, True])


def _shifted():
    Ain = te.placeholder((4, 4), name="Ain")
    Bx = te.compute((4, 4), lambda i, j: Ain[i + 1, j], name="Bx")
    return Ain, Bx, te.create_schedule(Bx.op)


def refused(s, args, exact, message):
    """lower returns the IR with a warning naming the read (as TVM lowers it); build refuses it."""
    with pytest.warns(OutsideReadWarning, match=message):
        func = lower.lower(s, args, exact=exact)
    assert func.outside_read is not None and "for (" in str(func)
    with pytest.raises(te.ScheduleError, match=message):
        build_lowered(func)
    with pytest.raises(te.ScheduleError, match=message):
        lower.build(s, args, exact=exact)


@BOTH
def test_a_read_past_the_end_is_warned_at_lower_and_refused_at_build(exact):
    Ain, Bx, s = _shifted()
    refused(s, [Ain, Bx], exact, r"Bx reads Ain\[1:5, 0:4\], but Ain has shape \(4, 4\)")


@BOTH
@pytest.mark.parametrize("target", TARGETS)
def test_a_read_past_the_end_is_refused_at_build(exact, target):
    Ain, Bx, s = _shifted()
    with pytest.raises(te.ScheduleError, match=r"Bx reads Ain\[1:5, 0:4\]"):
        lower.build(s, [Ain, Bx], exact=exact, target=target)


@BOTH
@pytest.mark.parametrize("target", TARGETS)
def test_a_padded_read_through_a_guard_is_accepted(exact, target):
    A = te.placeholder((6, 6), name="A")
    P = te.compute((8, 8), lambda i, j: te.if_then_else(te.all(i >= 1, i < 7, j >= 1, j < 7), A[i - 1, j - 1], 0.0),
                   name="P")
    k = te.reduce_axis((0, 3), name="k")
    B = te.compute((6, 8), lambda i, j: te.sum(P[i + k, j], axis=k), name="B")
    a = np.arange(36, dtype="float32").reshape(6, 6)
    b = np.zeros((6, 8), "float32")
    lower.build(te.create_schedule(B.op), [A, B], exact=exact, target=target)(a, b)
    padded = np.pad(a, 1)
    np.testing.assert_array_equal(b, padded[0:6] + padded[1:7] + padded[2:8])


@BOTH
@pytest.mark.parametrize("target", TARGETS)
def test_a_compute_needed_in_part_raises_nothing(exact, target):
    # B's definition would read A[4] at B[3], but C needs B[0:2] only.
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i + 1] * 2, name="B")
    C = te.compute((2,), lambda i: B[i] + 1, name="C")
    c = np.zeros(2, "float32")
    lower.build(te.create_schedule(C.op), [A, C], exact=exact, target=target)(np.arange(4, dtype="float32"), c)
    assert c.tolist() == [3, 5]


@BOTH
def test_a_compute_needed_where_it_reads_outside_is_refused(exact):
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i + 1] * 2, name="B")
    C = te.compute((4,), lambda i: B[i] + 1, name="C")
    refused(te.create_schedule(C.op), [A, C], exact, r"B reads A\[1:5\], but A has shape \(4,\)")


@BOTH
def test_a_reduction_window_that_leaves_its_input_is_refused(exact):
    A = te.placeholder((8,), name="A")
    k = te.reduce_axis((0, 3), name="k")
    B = te.compute((8,), lambda i: te.sum(A[i + k], axis=k), name="B")
    refused(te.create_schedule(B.op), [A, B], exact, r"B reads A\[0:10\], but A has shape \(8,\)")


@BOTH
@pytest.mark.parametrize("target", TARGETS)
def test_symbolic_reads_are_checked_at_the_call(exact, target):
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    m = te.var("m")
    B = te.compute((m,), lambda i: A[i + 1], name="B")
    f = lower.build(te.create_schedule(B.op), [A, B], exact=exact, target=target)
    b = np.zeros(3, "float32")
    f(np.arange(4, dtype="float32"), b)  # m = 3, n = 4: B reads A[1:4]
    assert b.tolist() == [1, 2, 3]
    for _ in range(2):  # the second time through the fast path's cache of good values
        with pytest.raises(te.ScheduleError, match=r"B reads A\[1:5\], but A has shape \(4,\) \(for m = 4, n = 4\)"):
            f(np.arange(4, dtype="float32"), np.zeros(4, "float32"))
    f(np.arange(4, dtype="float32"), b)
    assert b.tolist() == [1, 2, 3]
