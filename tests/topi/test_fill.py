"""topi.full and topi.full_like: every element is the fill value, in the tensor's dtype."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build


def test_full_and_full_like_fill_every_element():
    x = te.placeholder((3, 4), name="x", dtype="int8")
    like = topi.full_like(x, 5.7)  # cast to x's dtype, as TVM does
    full = topi.full((2, 5), "float32", 0.25)
    s = te.create_schedule([like.op, full.op])
    f = build(s, [x, like, full])
    out_like, out_full = np.full((3, 4), -1, "int8"), np.full((2, 5), np.nan, "float32")
    f(np.zeros((3, 4), "int8"), out_like, out_full)
    np.testing.assert_array_equal(out_like, np.full((3, 4), 5, "int8"))
    np.testing.assert_array_equal(out_full, np.full((2, 5), 0.25, "float32"))
    assert like.dtype == "int8" and like.op.tag == "elemwise"


def test_full_like_refuses_what_is_not_a_tensor():
    with pytest.raises(TypeError, match="takes a tensor"):
        topi.full_like(np.zeros(3), 1.0)
