"""Vectors that several written-out vector statements load, of a buffer none of them stores,
are loaded once before them (and kept in a register where few are): a matmul's register tile
with its rows unrolled loads each column vector once per reduction step instead of once per
row. The same arrays as NumPy on both targets, and no load moved past a store to its buffer."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tebound.tvm as tvm
from lower import build

from .test_c_vector import _register_tiled_matmul

TARGETS = ["c", "python"]


def _two_rows():
    """C = A @ B accumulated in a local tile of 2 rows (unrolled) by 32 columns (vectorized)."""
    s, A, B, C = _register_tiled_matmul(n=64, rows=2, cols=32)
    return s, [A, B, C]


@pytest.mark.parametrize("target", TARGETS)
def test_a_register_tile_computes_the_product(target):
    s, args = _two_rows()
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-1, 1, (64, 64)).astype("float32") for _ in range(2))
    c = np.zeros((64, 64), "float32")
    build(s, args, target=target)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_each_column_vector_of_the_tile_is_loaded_once_per_step():
    s, args = _two_rows()
    source = build(s, args, target="c").get_source()
    loads = re.findall(r"\*\((tb_float32x\d+)\*\)&B\[", source)
    assert loads, source
    lanes = int(loads[0].rsplit("x", 1)[1])
    assert len(loads) == 32 // lanes  # not once per row: 2 * 32 // lanes
    assert source.count("TB_IN_REGISTER(tb_v") == 32 // lanes


SEQUENCE = '''
@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32"),
         D: T.Buffer((32,), "float32")):
    for r in range(2):
        for j in T.vectorized(32):
            C[j] = A[j] * T.float32(2)
        for j in T.vectorized(32):
            D[j] = A[j] + B[j]
        for j in T.vectorized(32):
            B[j] = A[j] + B[j]
        for j in T.vectorized(32):
            A[j] = A[j] + B[j]
        for j in T.vectorized(32):
            D[j] = D[j] + A[j] + B[j]
'''


def _sequence_numpy(a, b, c, d):
    for _ in range(2):
        c[:] = a * 2
        d[:] = a + b
        b[:] = a + b
        a[:] = a + b
        d[:] = d + a + b


@pytest.mark.parametrize("target", TARGETS)
def test_no_load_moves_past_a_store_to_its_buffer(target):
    f = tvm.script.from_source(SEQUENCE)
    rng = np.random.default_rng(1)
    arrays = [rng.uniform(-1, 1, 32).astype("float32") for _ in range(4)]
    want = [x.copy() for x in arrays]
    _sequence_numpy(*want)
    tvm.build(f, target=target)(*arrays)
    for got, expected in zip(arrays, want):
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def _shared(source: str) -> set[str]:
    return {buf for buf in re.findall(r"tb_v\w* = \*\(tb_float32x\d+\*\)&(\w+)\[", source)}


def test_a_run_that_stores_a_buffer_shares_none_of_its_vectors():
    assert _shared(tvm.build(tvm.script.from_source(SEQUENCE), target="c").get_source()) == set()


READ_ONLY = SEQUENCE.replace("B[j] = A[j] + B[j]", "C[j] = A[j] - B[j]").replace("A[j] = A[j] + B[j]",
                                                                                  "C[j] = A[j] * B[j]")


@pytest.mark.parametrize("target", TARGETS)
def test_vectors_of_buffers_nothing_stores_are_loaded_once(target):
    f = tvm.build(tvm.script.from_source(READ_ONLY), target=target)
    if target == "c":
        assert _shared(f.get_source()) == {"A", "B"}
    rng = np.random.default_rng(2)
    a, b = (rng.uniform(-1, 1, 32).astype("float32") for _ in range(2))
    c, d = np.zeros(32, "float32"), np.zeros(32, "float32")
    f(a, b, c, d)
    np.testing.assert_allclose(c, a * b, rtol=1e-6)
    np.testing.assert_allclose(d, (a + b) + a + b, rtol=1e-6)
