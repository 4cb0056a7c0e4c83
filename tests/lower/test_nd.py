"""lower.nd: TVM's nd.array / nd.empty / cpu() as 64-byte aligned NumPy arrays that built
functions take like any array."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, cpu, nd


@pytest.mark.parametrize("shape, dtype", [((512, 512), "float32"), ((3, 5, 7), "float64"), ((1,), "int8"),
                                          ((0, 4), "float32"), (17, "int64")])
def test_arrays_are_64_byte_aligned_copies(shape, dtype):
    rng = np.random.default_rng(0)
    source = (rng.random(shape) * 100).astype(dtype)
    for _ in range(8):  # whatever offset NumPy's allocator gives the raw memory
        a = nd.array(source, cpu(0))
        assert a.ctypes.data % nd.ALIGNMENT == 0 or a.size == 0  # no data to align
        np.testing.assert_array_equal(a, source)
        assert a.dtype == source.dtype and a.shape == source.shape and a.flags.c_contiguous
        e = nd.empty(shape, dtype)
        assert (e.ctypes.data % 64 == 0 or e.size == 0) and e.shape == np.empty(shape).shape and e.dtype == np.dtype(dtype)
    a[...] = 0 if a.size else a
    assert not np.shares_memory(a, source)


def test_numpy_copies_and_copyfrom_copies_in():
    a = nd.array(np.arange(6, dtype="float32").reshape(2, 3))
    plain = a.numpy()
    assert type(plain) is np.ndarray and not np.shares_memory(plain, a)
    np.testing.assert_array_equal(plain, [[0, 1, 2], [3, 4, 5]])
    assert a.copyfrom(np.ones((2, 3))) is a and (a == 1).all()
    assert str(a.device) == "cpu(0)"
    with pytest.raises(ValueError, match=r"shape \(3,\) differs"):
        a.copyfrom(np.ones(3))


@pytest.mark.parametrize("offset", [0, 16, 2064, 4095])
def test_a_copy_at_a_page_offset_starts_there(offset):
    source = np.arange(24, dtype="float64").reshape(2, 3, 4)
    for _ in range(4):  # whatever offset NumPy's allocator gives the raw memory
        a = nd.at_page_offset(source, offset)
        assert a.ctypes.data % 4096 == offset and type(a) is np.ndarray
        np.testing.assert_array_equal(a, source)
        assert a.shape == source.shape and a.dtype == source.dtype and not np.shares_memory(a, source)


@pytest.mark.parametrize("bad, error", [(lambda: nd.empty((2, -1)), ValueError), (lambda: nd.empty((2.5,)), ValueError),
                                        (lambda: nd.at_page_offset([1.0], 4096), ValueError),
                                        (lambda: nd.at_page_offset([1.0], -16), ValueError),
                                        (lambda: nd.array([1.0], device="cuda"), TypeError),
                                        (lambda: cpu(-1), ValueError), (lambda: cpu(True), ValueError)])
def test_bad_arguments_are_refused(bad, error):
    with pytest.raises(error):
        bad()


def test_empty_takes_a_tensors_constant_shape_and_refuses_a_symbolic_one():
    assert nd.empty(te.placeholder((3, 4)).shape, "int8").shape == (3, 4)
    with pytest.raises(ValueError, match="non-negative ints"):
        nd.empty((te.var("n"), 2))
    with pytest.raises(ValueError, match="non-negative ints"):
        nd.empty((True, 2))


def test_a_tiled_vectorized_matmul_runs_on_nd_arrays():
    n = 64
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 16, 16)
    s[C].parallel(xo)
    s[C].vectorize(yi)
    rng = np.random.default_rng(1)
    a, b = nd.array(rng.random((n, n)).astype("float32")), nd.array(rng.random((n, n)).astype("float32"))
    c = nd.array(np.full((n, n), np.nan, "float32"))
    build(s, [A, B, C])(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() @ b.numpy(), rtol=1e-5)
