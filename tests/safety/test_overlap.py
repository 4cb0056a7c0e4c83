"""Arguments that overlap in memory: refused with a ValueError naming the two, unless they are
one array and the function is proven in place for them; the same on every target."""

from __future__ import annotations

import numpy as np
import pytest

import lower
import schedule as te

from .isolated import TARGETS


def _build(outputs, args, target, schedule=None):
    s = schedule or te.create_schedule([t.op for t in outputs])
    return lower.build(s, args, target=target)


@pytest.mark.parametrize("target", TARGETS)
def test_an_in_place_transpose_is_refused(target):
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda i, j: A[j, i], name="B")
    f = _build([B], [A, B], target)
    a = np.arange(16, dtype="float32").reshape(4, 4)
    with pytest.raises(ValueError, match="arguments 'B' and 'A' share memory, and 'B' is written while 'A' is read"):
        f(a, a)
    assert a.tolist() == np.arange(16).reshape(4, 4).tolist()  # nothing ran


@pytest.mark.parametrize("target", TARGETS)
def test_a_stencil_writing_into_its_shifted_input_is_refused(target):
    A = te.placeholder((9,), name="A")
    B = te.compute((8,), lambda i: A[i] + A[i + 1], name="B")
    f = _build([B], [A, B], target)
    x = np.arange(9, dtype="float32")
    with pytest.raises(ValueError, match="'B' and 'A' share memory"):
        f(x, x[1:])


@pytest.mark.parametrize("target", TARGETS)
def test_a_matmul_into_one_of_its_inputs_is_refused(target):
    k = te.reduce_axis((0, 4), name="k")
    A = te.placeholder((4, 4), name="A")
    W = te.placeholder((4, 4), name="W")
    C = te.compute((4, 4), lambda i, j: te.sum(A[i, k] * W[k, j], axis=k), name="C")
    f = _build([C], [A, W, C], target)
    a = np.ones((4, 4), "float32")
    with pytest.raises(ValueError, match="'C' and 'A' share memory"):
        f(a, np.ones((4, 4), "float32"), a)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(4, 4), "symbolic"])
def test_an_elementwise_function_may_write_its_input(shape, target):
    n = te.var("n")
    A = te.placeholder((n, 4) if shape == "symbolic" else shape, name="A")
    B = te.compute(A.shape, lambda i, j: A[i, j] * 2 + 1, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(s[B].fuse(*B.op.axis), 8)
    s[B].parallel(xo)
    f = _build([B], [A, B], target, s)
    a = np.arange(16, dtype="float32").reshape(4, 4)
    f(a, a)
    np.testing.assert_array_equal(a, np.arange(16).reshape(4, 4) * 2 + 1)


@pytest.mark.parametrize("target", TARGETS)
def test_an_elementwise_function_on_shifted_views_is_refused(target):
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    f = _build([B], [A, B], target)
    x = np.arange(9, dtype="float32")
    with pytest.raises(ValueError, match="'B' and 'A' share memory"):
        f(x[:8], x[1:])


@pytest.mark.parametrize("target", TARGETS)
def test_a_reduction_that_reads_the_element_it_updates_is_not_in_place(target):
    # B[i] is set to 0, then accumulates A[i] * k: with A and B one array, A[i] is read after
    # it was overwritten.
    k = te.reduce_axis((0, 3), name="k")
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: te.sum(A[i] * k, axis=k), name="B")
    f = _build([B], [A, B], target)
    a = np.ones(4, "float32")
    with pytest.raises(ValueError, match="'B' and 'A' share memory"):
        f(a, a)


@pytest.mark.parametrize("target", TARGETS)
def test_two_outputs_that_overlap_are_refused(target):
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    C = te.compute((4,), lambda i: A[i] + 2, name="C")
    f = _build([B, C], [A, B, C], target)
    out = np.zeros(4, "float32")
    with pytest.raises(ValueError, match="arguments 'B' and 'C' share memory, and 'B' is written while 'C' is written"):
        f(np.ones(4, "float32"), out, out)


@pytest.mark.parametrize("target", TARGETS)
def test_interleaved_views_that_share_no_element_run(target):
    # Their byte ranges overlap, their elements do not: the exact test lets them through.
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] * 10, name="B")
    f = _build([B], [A, B], target)
    x = np.arange(8, dtype="float32")
    f(x[::2], x[1::2])
    assert x.tolist() == [0, 0, 2, 20, 4, 40, 6, 60]
