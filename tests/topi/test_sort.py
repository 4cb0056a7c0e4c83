"""topi.sort, argsort and topk against NumPy's stable sort, along either axis, both orders,
with ties and integer data; refusals of bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target

RNG = np.random.default_rng(11)
DATA = {"float32": RNG.permutation(54).astype("float32").reshape(6, 9),
        "int32": RNG.integers(-3, 4, size=(6, 9)).astype("int32")}  # many ties


def _order(x, axis, ascend):
    return np.argsort(x if ascend else -x.astype("int64") if x.dtype.kind == "i" else -x, axis=axis, kind="stable")


@pytest.mark.parametrize("dtype", sorted(DATA))
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("ascend", [True, False])
def test_sort_and_argsort_as_numpy(dtype, axis, ascend):
    x = DATA[dtype]
    data = te.placeholder(x.shape, name="data", dtype=dtype)
    values, indices = topi.sort(data, axis=axis, is_ascend=ascend), topi.argsort(data, axis=axis, is_ascend=ascend,
                                                                                dtype="int32")
    got_v, got_i = np.zeros_like(x), np.full(x.shape, -1, "int32")
    build(te.create_schedule([values.op, indices.op]), [data, values, indices])(x, got_v, got_i)
    order = _order(x, axis, ascend)
    np.testing.assert_array_equal(got_i, order)
    np.testing.assert_array_equal(got_v, np.take_along_axis(x, order, axis=axis))


@pytest.mark.parametrize("ret_type", ["both", "values", "indices"])
@pytest.mark.parametrize("k", [0, 1, 4])
def test_topk_as_numpy(ret_type, k):
    x = DATA["float32"]
    data = te.placeholder(x.shape, name="data")
    outs = topi.topk(data, k, 1, ret_type, False, "int64")
    outs = outs if isinstance(outs, list) else [outs]
    got = [np.zeros([int(d) for d in t.shape], t.dtype) for t in outs]
    build(topi.generic.schedule_topk(outs), [data, *outs])(x, *got)
    order = _order(x, 1, False)[:, :k if k >= 1 else x.shape[1]]
    want = {"both": [np.take_along_axis(x, order, 1), order], "values": [np.take_along_axis(x, order, 1)],
            "indices": [order]}[ret_type]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_sorts_refuse_bad_arguments():
    data = te.placeholder((4, 5), name="data")
    with pytest.raises(ValueError, match="out of range"):
        topi.sort(data, axis=2)
    with pytest.raises(ValueError, match="ret_type"):
        topi.topk(data, 2, ret_type="all")
    with pytest.raises(ValueError, match="more than the 5 elements"):
        topi.topk(data, 6)
    with pytest.raises(TypeError, match="sorts a tensor"):
        topi.argsort(np.zeros(3))


@pytest.mark.parametrize("shape, axis", [((6, 9), 1), ((6, 9), 0), ((3, 17, 4), 1), ((1,), 0), ((2, 1000), 1),
                                         ((5, 2, 3), -1)])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
@pytest.mark.parametrize("ascend", [True, False])
def test_the_gpu_merge_sort_equals_numpys_stable_sort(shape, axis, dtype, ascend):
    """topi.cuda's sorts: a merge sort whose passes are kernels; ties keep their order and NaN
    goes last in either order, as the host sort (NumPy's)."""
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    x = (rng.integers(-4, 5, shape) if dtype == "int32" else rng.standard_normal(shape)).astype(dtype)
    if dtype != "int32":
        x.reshape(-1)[::5] = 0.5  # ties
        x.reshape(-1)[::7] = np.nan
    data = te.placeholder(shape, dtype, "data")
    with Target("cuda"):
        values = topi.cuda.sort(data, axis, ascend)
        indices = topi.cuda.argsort(data, axis=axis, is_ascend=ascend, dtype="int32")
        s = topi.cuda.schedule_sort([values, indices])
    assert values.op.name == "sort_gpu" and indices.op.name == "argsort_gpu"
    got_v, got_i = np.zeros_like(x), np.full(shape, -1, "int32")
    build(s, [data, values, indices])(x, got_v, got_i)
    order = np.argsort(x if ascend else -x.astype("float64"), axis=axis, kind="stable")
    np.testing.assert_array_equal(got_i, order)
    np.testing.assert_array_equal(got_v, np.take_along_axis(x, order, axis=axis))


@pytest.mark.parametrize("ret_type", ["both", "values", "indices"])
@pytest.mark.parametrize("k", [0, 1, 5])
def test_the_gpu_topk_takes_the_leading_elements_of_the_sorted_lines(ret_type, k):
    x = DATA["int32"]
    data = te.placeholder(x.shape, "int32", "data")
    with Target("cuda"):
        outs = topi.cuda.topk(data, k, 1, ret_type, False, "int64")
        outs = outs if isinstance(outs, list) else [outs]
        s = topi.cuda.schedule_topk(outs)
    got = [np.zeros([int(d) for d in t.shape], t.dtype) for t in outs]
    build(s, [data, *outs])(x, *got)
    order = _order(x, 1, False)[:, :k if k >= 1 else x.shape[1]]
    want = {"both": [np.take_along_axis(x, order, 1), order], "values": [np.take_along_axis(x, order, 1)],
            "indices": [order]}[ret_type]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("style", ["host", "gpu"])
def test_argsort_with_valid_count_sorts_only_each_lines_prefix(style):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 6, (4, 11)).astype("float32")
    count = np.array([11, 4, 0, -2], "int32")  # all, a prefix, none, and a negative count (none)
    data, valid = te.placeholder(x.shape, name="data"), te.placeholder((4,), "int32", "valid")
    with Target("cuda" if style == "gpu" else "llvm"):
        out = (topi.cuda.argsort if style == "gpu" else topi.argsort)(data, valid, axis=1, is_ascend=False)
        s = getattr(topi, "cuda" if style == "gpu" else "generic").schedule_argsort([out])
    got = np.full(x.shape, -1, "int32")
    build(s, [data, valid, out])(x, count, got)
    for row, n, g in zip(x, count, got):
        n = max(int(n), 0)
        np.testing.assert_array_equal(g[:n], np.argsort(-row[:n], kind="stable"))
        np.testing.assert_array_equal(g[n:], np.arange(n, len(row)))
    assert out.dtype == "int32"


def test_a_symbolic_line_length_is_sorted_on_the_host():
    n = te.var("n")
    data = te.placeholder((3, n), name="data")
    with Target("cuda"):
        out = topi.cuda.argsort(data, axis=1, dtype="int32")
    assert out.op.name == "argsort"
    x = np.random.default_rng(5).standard_normal((3, 7)).astype("float32")
    got = np.zeros((3, 7), "int32")
    build(te.create_schedule(out.op), [data, out])(x, got)
    np.testing.assert_array_equal(got, np.argsort(x, axis=1, kind="stable"))
