"""Checks of indices read from data, made once per row where the index is the same for the
whole row (an embedding lookup): the same results and the same errors as the Python target,
an empty row checks nothing, and the C kernel reads no element outside the table."""

from __future__ import annotations

import re

import numpy as np
import pytest

import lower
import schedule as te

from .isolated import TARGETS


def _lookup(d: int, v: int = 10, t: int = 6):
    E = te.placeholder((v, d), name="E")
    Tok = te.placeholder((t,), name="Tok", dtype="int32")
    O = te.compute((t, d), lambda i, j: E[Tok[i], j] * 2, name="O")
    return te.create_schedule(O.op), [E, Tok, O]


@pytest.mark.parametrize("target", TARGETS)
def test_rows_read_through_a_checked_token_equal_numpy(target):
    s, args = _lookup(8)
    f = lower.build(s, args, target)
    e = np.arange(80, dtype="float32").reshape(10, 8)
    tok = np.array([3, 0, 9, 3, 7, 1], "int32")
    o = np.zeros((6, 8), "float32")
    f(e, tok, o)
    np.testing.assert_array_equal(o, e[tok] * 2)
    if target == "c":
        assert "tb_ok" in f.get_source()  # checked once per row, before the row's loop


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("bad", [10, -1, 2**31 - 1])
def test_a_token_outside_the_table_is_the_same_error_on_both_targets(target, bad):
    s, args = _lookup(8)
    f = lower.build(s, args, target)
    tok = np.array([3, 0, bad, 3, 7, 1], "int32")
    with pytest.raises(lower.OutOfBoundsError, match=f"out-of-bounds read of E.*{re.escape(str(bad))}"):
        f(np.zeros((10, 8), "float32"), tok, np.zeros((6, 8), "float32"))


@pytest.mark.parametrize("target", TARGETS)
def test_an_empty_row_checks_nothing(target):
    s, args = _lookup(0)
    f = lower.build(s, args, target)
    f(np.zeros((10, 0), "float32"), np.array([99] * 6, "int32"), np.zeros((6, 0), "float32"))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kind", ["vectorize", "unroll"])
def test_a_checked_row_under_a_loop_pragma_builds(target, kind):
    """The check goes above the pragma, which must stay right above its loop."""
    s, args = _lookup(8)
    O = args[-1]
    getattr(s[O], kind)(O.op.axis[1])
    f = lower.build(s, args, target)
    e = np.arange(80, dtype="float32").reshape(10, 8)
    tok = np.array([1, 2, 3, 4, 5, 6], "int32")
    o = np.zeros((6, 8), "float32")
    f(e, tok, o)
    np.testing.assert_array_equal(o, e[tok] * 2)
