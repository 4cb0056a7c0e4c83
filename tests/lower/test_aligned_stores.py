"""A long vector loop storing into an argument is shifted so that its vector stores are aligned,
wherever the user's array starts: the elements before the first boundary and after the last
vector are computed one by one, and every element gets the value it gets on aligned arrays, bit
for bit, and NumPy's."""

from __future__ import annotations

import numpy as np
import pytest

import lower
import schedule as te
from lower import nd
from lower.backend.c.compile import find_compiler

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

ROWS, COLS = 6, 1024
#: Byte offsets into a page: every element-aligned one of a cache line, NumPy's large arrays'
#: (16), the end of a page.
OFFSETS = (*range(0, 64, 4), 2064, 4080)


def _row_scale(exp: bool):
    """out[i, j] = exp(x[i, j]) / d[i] (or x / d), rows parallel, columns one vector loop."""
    x, d = te.placeholder((ROWS, COLS), name="x"), te.placeholder((ROWS,), name="d")
    out = te.compute((ROWS, COLS), lambda i, j: (te.exp(x[i, j]) if exp else x[i, j]) / d[i], name="out")
    s = te.create_schedule(out.op)
    s[out].parallel(out.op.axis[0])
    s[out].vectorize(out.op.axis[1])
    return s, [x, d, out]


@pytest.mark.parametrize("exp", [False, True], ids=["divide", "exp"])
def test_every_offset_of_the_output_gives_the_aligned_results_bit_for_bit(exp):
    s, args = _row_scale(exp)
    f = lower.build(s, args, target="c")
    assert "out's first" in f.get_source()  # the loop is shifted for the output's stores
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, (ROWS, COLS)).astype("float32")
    d = rng.uniform(0.5, 2, ROWS).astype("float32")
    aligned = nd.at_page_offset(np.full((ROWS, COLS), np.nan, np.float32), 0)
    f(x, d, aligned)
    expected = (np.exp(x) if exp else x) / d[:, None]
    if exp:  # the vector polynomial: within 1 ulp of the correctly rounded exp
        np.testing.assert_allclose(aligned, expected, rtol=3e-7)
    else:
        np.testing.assert_array_equal(aligned, expected)
    for out_offset in OFFSETS:
        for x_offset in (0, 16):
            out = nd.at_page_offset(np.full((ROWS, COLS), np.nan, np.float32), out_offset)
            f(nd.at_page_offset(x, x_offset), d, out)
            np.testing.assert_array_equal(out, aligned, err_msg=f"output {out_offset}, input {x_offset} bytes in")


def test_the_python_target_agrees_at_numpys_offset():
    s, args = _row_scale(exp=False)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((ROWS, COLS)).astype("float32")
    d = rng.uniform(0.5, 2, ROWS).astype("float32")
    outs = {}
    for target in ("c", "python"):
        outs[target] = nd.at_page_offset(np.zeros((ROWS, COLS), np.float32), 16)
        lower.build(s, args, target=target)(nd.at_page_offset(x, 16), d, outs[target])
    np.testing.assert_array_equal(outs["c"], outs["python"])
    np.testing.assert_array_equal(outs["c"], x / d[:, None])


def test_an_array_updated_in_place_is_read_before_each_element_is_stored():
    """B[i] = A[i] * 3 + 1 with one array passed as both: each element is computed once, head,
    vector or tail, from its own value."""
    n = 4096
    a = te.placeholder((n,), name="A")
    b = te.compute((n,), lambda i: a[i] * 3.0 + 1.0, name="B")
    s = te.create_schedule(b.op)
    s[b].vectorize(b.op.axis[0])
    f = lower.build(s, [a, b], target="c")
    assert "B's first" in f.get_source()
    start = np.arange(n, dtype=np.float32)
    for offset in (0, 4, 16, 60, 4080):
        data = nd.at_page_offset(start, offset)
        f(data, data)
        np.testing.assert_array_equal(data, start * np.float32(3) + np.float32(1), err_msg=f"{offset} bytes in")


def test_a_short_vector_loop_and_an_intermediate_are_not_shifted():
    """Eight vectors or fewer are written out whole; stores into the kernel's own (aligned)
    memory need no shift."""
    n = 64
    a = te.placeholder((n,), name="A")
    t = te.compute((COLS,), lambda i: a[i % n] + 1.0, name="T")
    b = te.compute((n,), lambda i: t[i] * 2.0, name="B")
    s = te.create_schedule(b.op)
    s[t].vectorize(t.op.axis[0])
    s[b].vectorize(b.op.axis[0])
    f = lower.build(s, [a, b], target="c")
    source = f.get_source()
    assert "T's first" not in source  # T: the kernel's own memory
    assert "B's first" not in source  # B: at most eight vectors
    data = np.arange(n, dtype=np.float32)
    out = nd.at_page_offset(np.zeros(n, np.float32), 16)
    f(data, out)
    np.testing.assert_array_equal(out, (data + 1) * 2)
