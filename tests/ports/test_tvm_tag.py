"""TVM's test_te_tag, written anew: te.tag_scope as a with block and as a decorator, attributes
as TVM keeps them, and no nesting."""

from __future__ import annotations

import json

import numpy as np
import pytest

import schedule as te
from lower import build


def _inputs():
    n, m, l = te.size_var("n"), te.size_var("m"), te.size_var("l")
    return te.placeholder((n, l), name="A"), te.placeholder((m, l), name="B"), (n, m, l)


def test_with():
    A, B, (n, m, l) = _inputs()
    with te.tag_scope(tag="gemm"):
        k = te.reduce_axis((0, l), name="k")
        C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), attrs={"hello": 1, "arr": [10, 12]})
    assert C.op.tag == "gemm"
    assert "hello" in C.op.attrs and "xx" not in C.op.attrs
    assert C.op.attrs["hello"].value == 1
    CC = te.load_json(te.save_json(C))
    assert CC.op.attrs["hello"].value == 1 and CC.op.attrs["arr"][0].value == 10
    assert json.loads(str(CC.op.attrs))["arr"][1] == 12
    s = te.create_schedule(CC.op)
    AA, BB = CC.op.input_tensors
    a, b = np.arange(6, dtype="float32").reshape(2, 3), np.arange(12, dtype="float32").reshape(4, 3)
    c = np.full((2, 4), np.nan, "float32")
    build(s, [AA, BB, CC])(a, b, c)
    np.testing.assert_array_equal(c, a @ b.T)


def test_decorator():
    A, B, (n, m, l) = _inputs()

    @te.tag_scope(tag="conv")
    def compute_conv(data, weight):
        N, IC, H, W = data.shape
        OC, IC, KH, KW = weight.shape
        ic = te.reduce_axis((0, IC), name="ic")
        dh = te.reduce_axis((0, KH), name="dh")
        dw = te.reduce_axis((0, KW), name="dw")
        return te.compute((N, OC, H - KH + 1, W - KW + 1), lambda i, oc, h, w: te.sum(
            data[i, ic, h + dh, w + dw] * weight[oc, ic, dh, dw], axis=[ic, dh, dw]))

    data = te.placeholder((1, 2, 5, 5), name="data")
    weight = te.placeholder((3, 2, 3, 3), name="weight")
    C = compute_conv(data, weight)
    assert C.op.tag == "conv" and len(C.op.attrs) == 0
    assert te.compute((2,), lambda i: i * 1.0).op.tag == ""  # the scope ended with the call


def test_nested_scopes_are_refused():
    c = te.placeholder((4, 5), name="c")

    @te.tag_scope(tag="conv")
    def compute_relu(data):
        return te.compute(data.shape, lambda *i: te.Select(data(*i) < 0, te.const(0.0), data(*i)))

    with pytest.raises(ValueError, match="tag_scope: tag 'conv' inside tag 'conv'; tag scopes do not nest"):
        with te.tag_scope(tag="conv"):
            compute_relu(c)
    assert compute_relu(c).op.tag == "conv"  # the failed scope left nothing behind


def test_an_unused_tag_warns():
    with pytest.warns(UserWarning, match="tag 'idle' declared via tag_scope was not used"):
        with te.tag_scope(tag="idle"):
            pass
    with pytest.raises(ValueError, match="tag_scope: a tag is a string"):
        te.tag_scope(tag=3)


def test_attributes_that_are_no_values_are_refused():
    with pytest.raises(TypeError, match=r"compute 'T': attribute 'f': a function is no attribute value"):
        te.compute((2,), lambda i: i * 1.0, name="T", attrs={"f": lambda: 0})
