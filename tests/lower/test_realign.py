"""Arguments a C kernel updates in place are realigned for the call when NumPy gave them data
off a 64-byte boundary: the results land in the user's array as they would without the copy
(elements the kernel leaves alone included), overlapping arguments are still refused, and
kernels that write each element once are left alone."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, nd
from lower.backend.c.compile import find_compiler
from lower.backend.c.realign import REALIGN_BYTES

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")
# The script calls the names hybrid script gives it (output_tensor).
# ruff: noqa: F821


def _at(offset: int, shape, fill=0.0) -> np.ndarray:
    """A float32 array of *fill* whose data starts *offset* bytes into a page."""
    return nd.at_page_offset(np.full(shape, fill, np.float32), offset)


def _tiled_matmul(n):
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 32, 32)
    ko, ki = s[C].split(k, factor=4)
    s[C].reorder(xo, yo, ko, xi, ki, yi)
    s[C].parallel(xo)
    s[C].vectorize(yi)
    return s, [A, B, C]


def test_an_output_updated_in_place_is_realigned_and_written_back():
    n = 256
    assert n * n * 4 >= REALIGN_BYTES
    s, args = _tiled_matmul(n)
    f = build(s, args, target="c")
    assert f._realign == [2]  # C: its update reads it
    rng = np.random.default_rng(0)
    a, b = _at(16, (n, n)), _at(16, (n, n))
    a[...], b[...] = rng.random((n, n)), rng.random((n, n))
    for offset in (16, 32, 2064, 0):
        c = _at(offset, (n, n), np.nan)
        f(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-4)
    np.testing.assert_allclose(f._spares._free[0], a @ b, rtol=1e-4)  # a copy kept for the next call


def test_elements_the_kernel_leaves_alone_keep_their_values():
    @te.hybrid.script
    def bump_even(a):
        c = output_tensor((65536,), "float32")
        for i in range(65536):
            if i % 2 == 0:
                c[i] = c[i] + a[i]
        return c

    a = te.placeholder((65536,), name="a")
    c = bump_even(a)
    f = build(te.create_schedule(c.op), [a, c], target="c")
    assert f._realign == [1]
    av = _at(16, (65536,), 1.0)
    cv = _at(16, (65536,), 5.0)
    f(av, cv)
    np.testing.assert_array_equal(cv[0::2], 6.0)
    np.testing.assert_array_equal(cv[1::2], 5.0)


def test_overlapping_arguments_are_still_refused_and_single_writes_are_left_alone():
    n = 256
    s, args = _tiled_matmul(n)
    f = build(s, args, target="c")
    a = _at(16, (n, n), 1.0)
    with pytest.raises(ValueError, match="overlap"):
        f(a, a, a)
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] * 2, name="B")
    g = build(te.create_schedule(B.op), [A, B], target="c")
    assert g._realign == []
    b = _at(16, (n, n), np.nan)
    g(a, b)
    np.testing.assert_array_equal(b, 2 * a)
