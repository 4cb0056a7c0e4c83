"""autotvm's per-loop touch features against counts worked out by hand: a matrix product's
loops (strides, distinct elements touched, reuse, the products of lengths above and below),
a parallel loop's per-thread counts, the log transform, the flattened vector and its names,
and the curves' size."""

from __future__ import annotations

import math

import numpy as np
import pytest

import schedule as te
from tune.autotvm import feature


def _gemm(n):
    k = te.reduce_axis((0, n), "k")
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    C = te.compute((n, n), lambda y, x: te.sum(A[y, k] * B[k, x], axis=k), name="C")
    return te.create_schedule(C.op), [A, B, C]


def _rows(fea):
    return [{pair[0]: pair[1:] for pair in row[1:]} for row in fea]


def test_matrix_product_by_hand():
    s, args = _gemm(16)
    fea = feature.get_itervar_feature(s, args)
    assert [str(row[0][1]) for row in fea] == ["y", "x", "k"]
    y, x, k = _rows(fea)
    serial = [0] * 9 + [1, 0]
    # length, depth, product of the lengths down to this loop, the most element-visits below it
    assert y["_attr_"] == [16, 1, 16, 16 ** 3, *serial]
    assert x["_attr_"] == [16, 2, 256, 256, *serial]
    assert k["_attr_"] == [16, 3, 16 ** 3, 16, *serial]
    assert k["_arith_"] == [1, 1, 0] and y["_arith_"] == [0, 0, 0]
    # C[y, x] = C[y, x] + A[y, k] * B[k, x]: the store C_0, then the loads C_1, A_0, B_0
    assert set(k) == {"_attr_", "_arith_", "A_0", "B_0", "C_0", "C_1"}
    # [stride, mod, distinct elements touched in the loop's nest, touches per element, 0, 0]
    assert (y["A_0"], x["A_0"], k["A_0"]) == ([16, -1, 256, 16, 0, 0], [0, -1, 16, 16, 0, 0], [1, -1, 16, 1, 0, 0])
    assert (y["B_0"], x["B_0"], k["B_0"]) == ([0, -1, 256, 16, 0, 0], [1, -1, 256, 1, 0, 0], [16, -1, 16, 1, 0, 0])
    assert (y["C_0"], x["C_0"], k["C_0"]) == ([16, -1, 256, 16, 0, 0], [1, -1, 16, 16, 0, 0], [0, -1, 1, 16, 0, 0])
    assert y["C_1"] == y["C_0"] and k["C_1"] == k["C_0"]


def test_a_parallel_loop_counts_per_thread():
    A = te.placeholder((32,), name="A")
    C = te.compute((32,), lambda i: A[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    outer, inner = s[C].split(C.op.axis[0], 8)
    s[C].parallel(outer)
    o, i = _rows(feature.get_itervar_feature(s, [A, C]))
    assert o["_attr_"][4:] == [0] * 8 + [1, 0, 0] and o["_attr_"][:4] == [4, 1, 4, 32]
    # 32 elements under the parallel loop, 8 per thread, each touched once
    assert o["A_0"] == [8, -1, 32, 1, 4, 1] and i["A_0"] == [1, -1, 8, 1, 0, 0]
    assert i["_arith_"] == [1, 0, 0]


def test_log_transform_flattening_and_names():
    s, args = _gemm(8)
    raw, logged = feature.get_itervar_feature(s, args), feature.get_itervar_feature(s, args, take_log=True)
    assert logged[0][1][1] == pytest.approx(math.log2(8 + 1))
    assert logged[2][3][1:] == pytest.approx([math.log2(2), -math.log2(2), math.log2(9), math.log2(2), 0, 0])
    flat = feature.get_itervar_feature_flatten(s, args)
    np.testing.assert_allclose(flat, feature.flatten_itervar_feature(logged), rtol=1e-6)
    names = feature.get_flatten_name(raw)
    assert len(names) == len(flat) == 3 * (15 + 3 + 6 * 4)
    assert names[:2] == ["f0.y._attr_.length", "f1.y._attr_.nest_level"] and names[-1].endswith(".C_1.T_reuse")


@pytest.mark.parametrize("sample_n", [5, 30])
def test_curves_sample_each_innermost_buffer(sample_n):
    s, args = _gemm(16)
    curves = feature.get_buffer_curve_sample_flatten(s, args, sample_n)
    # three buffers (A, B, C), four curves each, two numbers per point
    assert len(curves) == sample_n * 3 * 4 * 2
    # A's counts along the nest (log2): 0, then 4 (k), 4 (x), 8 (y); its reuses 0, 0 (k), 4, 4:
    # the first curve, reuse against count, at x = 0, 1, ...: the last count not above x
    first = list(zip(curves[0:2 * sample_n:2], curves[1:2 * sample_n:2]))
    assert first[0] == (0.0, 0.0) and first[4] == (4.0, 0.0)
