"""topi.sort, argsort and topk against NumPy's stable sort, along either axis, both orders,
with ties and integer data; refusals of bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build

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
