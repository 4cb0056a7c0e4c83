"""``topi.unique`` and ``topi.argwhere`` against NumPy's ``unique`` and ``argwhere``, their
generic and CUDA forms, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target

RNG = np.random.default_rng(43)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("shape", [(1,), (100,), (5, 3), (6, 5, 3), (1, 1, 1, 1), (3, 4, 2, 3, 2)])
@pytest.mark.parametrize("style", ["generic", "cuda"])
def test_argwhere_lists_the_nonzero_positions_in_order(shape, style):
    data = RNG.choice([0, 1, 2, 3], size=shape).astype("int32")
    want = np.argwhere(data)
    S, C = te.placeholder(want.shape, "int32", "S"), te.placeholder(shape, "int32", "C")
    with Target("cuda" if style == "cuda" else "llvm"):
        out = (topi.cuda.argwhere if style == "cuda" else topi.argwhere)(S, C)
        s = getattr(topi, style).schedule_argwhere([out])
    got = np.full(want.shape, -1, "int32")
    build(s, [S, C, out])(np.ones(want.shape, "int32"), data, got)
    np.testing.assert_array_equal(got, want)


def _numpy_unique(data, is_sorted):
    values, first, inverse, counts = np.unique(data, return_index=True, return_inverse=True, return_counts=True)
    if not is_sorted:
        order = np.argsort(first)
        rank = np.argsort(order)
        values, first, counts, inverse = values[order], first[order], counts[order], rank[inverse]
    return values, first, inverse, counts


@pytest.mark.parametrize("size, top", [(1, 100), (10, 10), (500, 60)])
@pytest.mark.parametrize("is_sorted", [True, False])
@pytest.mark.parametrize("counts", [True, False])
def test_unique_equals_numpys(size, top, is_sorted, counts):
    data = RNG.integers(0, top, size).astype("int64")
    D = te.placeholder((size,), "int64", "D")
    outs = topi.unique(D, is_sorted, counts)
    assert len(outs) == (5 if counts else 4)
    got = [np.full(size, -9, "int64"), *(np.full(size, -9, "int32") for _ in range(2)), np.zeros(1, "int32")]
    got += [np.full(size, -9, "int32")] if counts else []
    build(topi.generic.schedule_unique(outs), [D, *outs])(data, *got)
    values, first, inverse, times = _numpy_unique(data, is_sorted)
    n = len(values)
    assert got[3][0] == n
    np.testing.assert_array_equal(got[0][:n], values)
    np.testing.assert_array_equal(got[1][:n], first)
    np.testing.assert_array_equal(got[2], inverse)
    assert (got[0][n:] == -9).all()  # past num_unique: left as it was
    if counts:
        np.testing.assert_array_equal(got[4][:n], times)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="takes a 1-d tensor"):
        topi.unique(te.placeholder((2, 3), "int32"))
    with pytest.raises(ValueError, match=r"output_shape is \(count, 2\)"):
        topi.argwhere(te.placeholder((4, 3), "int32"), te.placeholder((2, 2), "int32"))


@pytest.mark.parametrize("style", ["generic", "cuda"])
def test_argwhere_with_fewer_rows_than_nonzero_elements_writes_the_first_ones(style):
    data = np.random.default_rng(9).choice([0, 1], size=(6, 7)).astype("int32")
    want = np.argwhere(data)[:5]
    S, C = te.placeholder((5, 2), "int32", "S"), te.placeholder(data.shape, "int32", "C")
    with Target("cuda" if style == "cuda" else "llvm"):
        out = (topi.cuda.argwhere if style == "cuda" else topi.argwhere)(S, C)
        s = getattr(topi, style).schedule_argwhere([out])
    got = np.full((5, 2), -1, "int32")
    build(s, [S, C, out])(np.ones((5, 2), "int32"), data, got)
    np.testing.assert_array_equal(got, want)
