"""What a built function accepts, and kernels that never clash with Python or use undefined names.

(TVM's loop-dependent reductions run in tests/ports/test_tvm_schedule_ops.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build


@pytest.fixture
def add_one():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    return build(te.create_schedule(B.op), [A, B])


def test_a_wrong_dtype_is_a_type_error_naming_the_argument(add_one):
    with pytest.raises(TypeError, match=r"argument 'A' has dtype float64, but the tensor is float32; "
                                        r"convert it with .astype\('float32'\)"):
        add_one(np.zeros(4, "float64"), np.zeros(4, "float32"))


def test_a_read_only_output_is_refused(add_one):
    b = np.zeros(4, "float32")
    b.setflags(write=False)
    with pytest.raises(ValueError, match="argument 'B' is read-only"):
        add_one(np.zeros(4, "float32"), b)
    a = np.arange(4, dtype="float32")
    a.setflags(write=False)  # inputs may be read-only
    out = np.zeros(4, "float32")
    add_one(a, out)
    np.testing.assert_array_equal(out, a + 1)


@pytest.mark.parametrize("bad", [np.array(["a", "b", "c", "d"]), np.array([None] * 4, dtype=object)])
def test_non_numeric_arrays_are_refused(add_one, bad):
    with pytest.raises(TypeError, match="argument 'A' holds .* values, not numbers"):
        add_one(bad, np.zeros(4, "float32"))


@pytest.mark.parametrize("exact", [False, True])
def test_names_that_are_python_keywords_and_builtins_work(exact):
    A = te.placeholder((4, 3), name="lambda")
    B = te.compute((4, 3), lambda range, min: A[range, min] + 1, name="for")
    C = te.compute((4, 3), lambda max, int: B[max, int] * 2, name="max")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=2)
    s[B].compute_at(s[C], xo)
    a = np.arange(12, dtype="float32").reshape(4, 3)
    c = np.full((4, 3), np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, (a + 1) * 2)


def test_a_reduction_loop_outside_the_axis_its_extent_needs_is_refused():
    X = te.placeholder((6,), name="x")
    rv_box = []

    def prefix(n):
        rv = te.reduce_axis((0, n), name="rv")
        rv_box.append(rv)
        return te.sum(X[rv], axis=rv)

    Y = te.compute(X.shape, prefix, name="y")
    s = te.create_schedule(Y.op)
    s[Y].reorder(rv_box[0], Y.op.axis[0])
    from lower import LoweringError

    with pytest.raises(LoweringError, match="stage 'y': the extent of loop 'rv' depends on n, a loop inside it"):
        build(s, [X, Y])
