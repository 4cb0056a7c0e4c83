"""Storage flattening through tiled layouts: addresses, padding, execution on physical data."""

from __future__ import annotations

import re

import numpy as np
import pytest

import schedule as te
from lower import Layout, LoweringError, build, lower


def pipeline():
    A = te.placeholder((8, 8), name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j] * 2, name="B")
    C = te.compute((8, 8), lambda i, j: B[i, j] + 1, name="C")
    return A, B, C, te.create_schedule(C.op)


def test_loops_matching_the_tiles_address_without_division():
    A, B, C, s = pipeline()
    s[B].set_layout("{1,0:(2,4)}")
    s[B].tile(B.op.axis[0], B.op.axis[1], 2, 4)
    text = str(lower(s, [A, C]))
    store = re.search(r"^\s*B\[(.*)\] = ", text, re.M).group(1)
    load = re.search(r"\(B\[(.*?)\] \+ 1", text).group(1)
    assert "floordiv" not in store and "floormod" not in store
    assert store == "((((i.outer*16) + (j.outer*8)) + (i.inner*4)) + j.inner)"
    assert "floordiv(i, 2)" in load and "floormod(j, 4)" in load
    assert "allocate B[float32 * 64]" in text


@pytest.mark.parametrize("a_layout, c_layout, b_layout", [
    ("{0,1}", "{1,0:(2,4)}", "{1,0:(4,4)(2,1)}"),
    ("{1,0:(3,3)}", "{0,1:(4,2)}", None),
    (None, "{1,0:(*,5)}", "{0,1:(3,8)}"),
])
@pytest.mark.parametrize("exact", [False, True])
def test_build_runs_on_physical_arrays(a_layout, c_layout, b_layout, exact):
    A, B, C, s = pipeline()
    for T, text in ((A, a_layout), (C, c_layout), (B, b_layout)):
        if text:
            s[T].set_layout(text)
    xo, xi = s[C].split(C.op.axis[1], factor=3)
    a = np.random.default_rng(3).integers(-9, 9, size=(8, 8)).astype("float32")
    la = Layout.from_text(a_layout or "", (8, 8), "F32")
    lc = Layout.from_text(c_layout, (8, 8), "F32")
    out = np.full(lc.physical_size, np.nan, dtype="float32")
    build(s, [A, C], exact=exact)(la.to_physical(a) if a_layout else a, out)
    assert np.array_equal(lc.from_physical(out), a * 2 + 1)


def test_a_layout_needs_the_tensor_realized_whole():
    A, B, C, s = pipeline()
    s[B].set_layout("{1,0:(2,2)}")
    s[B].compute_at(s[C], C.op.axis[0])
    with pytest.raises(LoweringError, match="stage 'B' has a layout"):
        lower(s, [A, C])


@pytest.mark.parametrize("bad, message", [
    ("{1,0:(2,0)}", "a tile size that is positive at column 9"),
    ("{1,0:(*,2)(2,*)}", "must not be last"),
    ("{0,0}", "not a permutation"),
    ("{1,0:(2,2,2)}", "more dimensions"),
    (Layout.parse("F32[4,4]{1,0}"), "is for shape"),
    (42, "a layout is a string such as '{1,0:(2,2)}' or a lower.Layout, not int"),
    (None, "not NoneType"),
    ("{1,0} trailing", "expected the end of the layout at column 7"),
])
def test_bad_layouts_are_refused_and_change_nothing(bad, message):
    A, B, C, s = pipeline()
    s[B].set_layout("{0,1}")
    before = s[B].layout
    expected = TypeError if bad is None or isinstance(bad, int) else te.ScheduleError
    with pytest.raises(expected, match=re.escape(message) if "{" in message else message):
        s[B].set_layout(bad)
    assert s[B].layout == before


def test_a_layout_argument_takes_its_physical_size():
    A, B, C, s = pipeline()
    s[C].set_layout("{1,0:(3,3)}")
    f = build(s, [A, C])
    with pytest.raises(ValueError, match=r"argument 'C' has shape \(8, 8\); its layout .* holds 81 elements"):
        f(np.zeros((8, 8), "float32"), np.zeros((8, 8), "float32"))
