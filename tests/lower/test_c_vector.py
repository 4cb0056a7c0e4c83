"""The C target's vector code and register accumulators: vectorized loops of contiguous
accesses become GCC vector statements, small local buffers become variables, and the floor
division helpers are exact; every kernel is compared with NumPy."""

from __future__ import annotations

import platform
import re

import numpy as np
import pytest

import schedule as te
from lower import build
from lower.backend.c.compile import find_compiler, native_vector_bytes

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


def _lanes(extent: int, dtype: str = "float32") -> int:
    """The lanes of the vector code of a loop of *extent* (0: no vector code), as
    lower.backend.c.vector chooses them on this machine."""
    lanes = min(extent, native_vector_bytes() * 8 // int("".join(c for c in dtype if c.isdigit())))
    return lanes if lanes >= 2 and not lanes & (lanes - 1) and extent % lanes == 0 else 0


def _register_tiled_matmul(n: int = 64, rows: int = 4, cols: int = 16):
    """A matmul with a register tile: a local accumulator of rows x cols at each tile, the
    reduction outside its rows (unrolled) and columns (vectorized)."""
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], rows, cols)
    s[CC].compute_at(s[C], no)
    mc, nc = s[CC].op.axis
    (kk,) = s[CC].op.reduce_axis
    s[CC].reorder(kk, mc, nc)
    s[CC].unroll(mc)
    s[CC].vectorize(nc)
    s[C].parallel(mo)
    s[C].vectorize(ni)
    return s, A, B, C


def test_the_accumulators_of_a_register_tiled_matmul_are_vector_variables():
    s, A, B, C = _register_tiled_matmul()
    f = build(s, [A, B, C], target="c")
    source = f.get_source()
    # 4 x 16 floats: vectors (8 of 8 lanes with AVX2), declared as variables, never as an array.
    lanes = _lanes(16)
    vt = f"tb_float32x{lanes}"
    declared = re.findall(rf"{vt} (C_local_r\d+) = \{{0\}}", source.replace(", ", f" {vt} "))
    assert len(set(declared)) == 64 // lanes
    assert "C_local[" not in source
    assert re.search(r"C_local_r\d+ = \(\(C_local_r\d+\) \+ \(A\[", source)
    rng = np.random.default_rng(0)
    a, b = rng.random((64, 64), dtype=np.float32), rng.random((64, 64), dtype=np.float32)
    c = np.full((64, 64), np.nan, "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_a_scalar_accumulator_becomes_a_variable():
    n = 16
    A = te.placeholder((n, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    S = te.compute((n,), lambda i: te.sum(A[i, k] * A[i, k], axis=k), name="S")
    s = te.create_schedule(S.op)
    SL = s.cache_write(S, "local")
    s[SL].compute_at(s[S], S.op.axis[0])
    f = build(s, [A, S], target="c")
    assert re.search(r"float S_local_r0 = 0;", f.get_source()) and "S_local[" not in f.get_source()
    a = np.random.default_rng(1).standard_normal((n, n)).astype("float32")
    out = np.full(n, np.nan, "float32")
    f(a, out)
    np.testing.assert_allclose(out, (a * a).sum(axis=1), rtol=1e-5)


def test_a_local_buffer_with_a_varying_index_stays_an_array():
    """The rows of the local tile are a serial loop too long to unroll: no variables."""
    s, A, B, C = _register_tiled_matmul(n=128, rows=128, cols=8)
    f = build(s, [A, B, C], target="c")
    assert "C_local[" in f.get_source() and "C_local_r0" not in f.get_source()
    rng = np.random.default_rng(2)
    a, b = rng.random((128, 128), dtype=np.float32), rng.random((128, 128), dtype=np.float32)
    c = np.full((128, 128), np.nan, "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("extent", [8, 16, 6, 3])
def test_vectorized_loops_of_contiguous_and_broadcast_values(dtype, extent):
    """Contiguous loads, a value broadcast along the loop, a constant store and an offset;
    extents that are no multiple of a vector stay omp simd loops, with the same results."""
    n = 4 * extent
    A = te.placeholder((n + 1,), name="A", dtype=dtype)
    W = te.placeholder((4,), name="W", dtype=dtype)
    B = te.compute((n,), lambda i: A[i + 1] * W[i // extent] + A[i] - W[0], name="B")
    Z = te.compute((n,), lambda i: B[i] * te.const(2, dtype), name="Z")
    s = te.create_schedule(Z.op)
    o, inner = s[Z].split(Z.op.axis[0], factor=extent)
    s[B].compute_at(s[Z], o)
    s[B].vectorize(s[B].op.axis[0])
    s[Z].vectorize(inner)
    f = build(s, [A, W, Z], target="c")
    assert ("tb_" + dtype + "x" in f.get_source()) == bool(_lanes(extent, dtype))
    rng = np.random.default_rng(3)
    a = rng.integers(-9, 10, n + 1).astype(dtype)
    w = rng.integers(-9, 10, 4).astype(dtype)
    z = np.zeros(n, dtype)
    f(a, w, z)
    i = np.arange(n)
    np.testing.assert_allclose(z, (a[i + 1] * w[i // extent] + a[i] - w[0]) * 2)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_max_and_min_of_a_vector_and_a_value_the_same_in_every_lane(dtype):
    """relu (``max(x, 0)``) and a clamp by a loaded scalar, vectorized: the lane-invariant side
    is broadcast to a vector (the C compiler refused the scalar before)."""
    n = 32
    A = te.placeholder((n,), name="A", dtype=dtype)
    W = te.placeholder((1,), name="W", dtype=dtype)
    R = te.compute((n,), lambda i: te.min(te.max(A[i], te.const(0, dtype)), W[0]), name="R")
    s = te.create_schedule(R.op)
    _, inner = s[R].split(R.op.axis[0], factor=8)
    s[R].vectorize(inner)
    f = build(s, [A, W, R], target="c")
    assert ("tb_" + dtype + "x" in f.get_source()) == bool(_lanes(8, dtype))
    rng = np.random.default_rng(5)
    a, w = rng.integers(-9, 10, n).astype(dtype), np.array([4], dtype)
    r = np.zeros(n, dtype)
    f(a, w, r)
    np.testing.assert_array_equal(r, np.minimum(np.maximum(a, 0), 4))


def test_a_loop_with_a_gather_or_a_call_stays_scalar():
    A = te.placeholder((64,), name="A")
    B = te.compute((32,), lambda i: A[i * 2] + te.exp(A[i]), name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(s[B].split(B.op.axis[0], factor=8)[1])
    f = build(s, [A, B], target="c")
    assert "tb_float32x" not in f.get_source() and "#pragma omp simd" in f.get_source()
    a = np.linspace(-1, 1, 64).astype("float32")
    b = np.zeros(32, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a[::2] + np.exp(a[:32]), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["int32", "int64", "int8"])
def test_floor_division_and_modulo_of_every_sign(dtype):
    n = 21 * 14
    A = te.placeholder((n,), name="A", dtype=dtype)
    B = te.placeholder((n,), name="B", dtype=dtype)
    Q = te.compute((n,), lambda i: te.floordiv(A[i], B[i]), name="Q")
    R = te.compute((n,), lambda i: te.floormod(A[i], B[i]), name="R")
    s = te.create_schedule([Q.op, R.op])
    f = build(s, [A, B, Q, R], target="c")
    grid = np.array([(a, b) for a in range(-10, 11) for b in range(-7, 8) if b], dtype)
    a, b = grid[:n, 0].copy(), grid[:n, 1].copy()
    q, r = np.zeros(n, dtype), np.zeros(n, dtype)
    f(a, b, q, r)
    np.testing.assert_array_equal(q, np.floor_divide(a, b))
    np.testing.assert_array_equal(r, np.mod(a, b))


@pytest.mark.parametrize("given, expected", [({}, (None, "10000")), ({"OMP_WAIT_POLICY": "active"}, ("active", None)),
                                             ({"GOMP_SPINCOUNT": "1000"}, (None, "1000"))])
def test_openmp_threads_spin_briefly_unless_the_user_chose(given, expected):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(given)
    code = ("import os, lower.backend.c.kernel; "
            "print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(e) for e in expected]


def test_a_parallel_body_takes_its_arrays_as_restrict_parameters():
    """OpenMP would pass the arrays in a struct, losing restrict: the body is a function of
    the loop variable, the outer scalars and restrict arrays, and computes the same."""
    n = 64
    A = te.placeholder((n, n), name="A")
    scale = te.var("scale", dtype="float32")
    B = te.compute((n, n), lambda i, j: A[i, j] * scale + A[j, i], name="B")
    s = te.create_schedule(B.op)
    s[B].parallel(B.op.axis[0])
    f = build(s, [A, B, scale], target="c")
    source = f.get_source()
    assert re.search(r"static inline void tb_parallel_body\(int32_t i, float scale, "
                     r"float\* restrict B, float\* restrict A\)", source)
    assert "tb_parallel_body(i, scale, B, A);" in source
    a = np.random.default_rng(4).standard_normal((n, n)).astype("float32")
    b = np.full((n, n), np.nan, "float32")
    f(a, b, 1.5)
    np.testing.assert_allclose(b, a * 1.5 + a.T, rtol=1e-5, atol=1e-6)  # C may fuse the multiply-add


def test_a_parallel_body_that_calls_python():
    te.register_func("test_c.twice", lambda x: 2 * x, override=True)
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: te.call_extern("float32", "test_c.twice", A[i]), name="B")
    s = te.create_schedule(B.op)
    s[B].parallel(B.op.axis[0])
    f = build(s, [A, B], target="c")
    assert "tb_ctx_t* tb_ctx)" in f.get_source().split("int32_t tb_main")[0]
    b = np.zeros(8, "float32")
    f(np.arange(8, dtype="float32"), b)
    np.testing.assert_array_equal(b, 2 * np.arange(8))


@pytest.mark.parametrize("features, arch, expected", [
    (["-mavx512f", "-mavx2"], "skylake-avx512", 64), (["-mavx512f", "-mavx2"], "znver4", 64),
    (["-mavx2"], "haswell", 32), ([], "x86-64", 16)])
def test_the_vector_width_follows_the_compilers_target(monkeypatch, features, arch, expected):
    import platform
    import subprocess
    from types import SimpleNamespace

    from lower.backend.c import compile as c_compile

    listing = "\n".join([f"  -march=                     \t\t{arch}", "  -mavx                        \t\t[enabled]",
                         *(f"  {f}                      \t\t[enabled]" for f in features),
                         "  -mavx512bw                   \t\t[disabled]"])
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: SimpleNamespace(stdout=listing))
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    c_compile.native_vector_bytes.cache_clear()
    c_compile.native_target.cache_clear()
    try:
        assert c_compile.native_vector_bytes() == expected
    finally:
        monkeypatch.undo()
        c_compile.native_vector_bytes.cache_clear()
        c_compile.native_target.cache_clear()


def test_a_local_buffer_of_more_than_256_elements_stays_an_array():
    """A local stage of 8 x 8 x 8 indexed by three nested loops: too big for variables, so it
    stays an array and its loops are not unrolled (the kernel stays small)."""
    A = te.placeholder((8, 8, 8), name="A")
    B = te.compute((8, 8, 8), lambda i, j, k: A[i, j, k] * 2, name="B")
    C = te.compute((8, 8, 8), lambda i, j, k: B[i, j, k] + 1, name="C")
    s = te.create_schedule(C.op)
    s[B].set_scope("local")
    f = build(s, [A, C], target="c")
    assert "B_r0" not in f.get_source() and f.get_source().count("\n") < 200
    a = np.arange(512, dtype="float32").reshape(8, 8, 8)
    c = np.zeros((8, 8, 8), "float32")
    f(a, c)
    np.testing.assert_array_equal(c, a * 2 + 1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vector_max_and_min_choose_as_the_scalar_code_does(dtype):
    """max(a, b) is ``a > b ? a : b`` and min ``a < b ? a : b`` lane by lane, signed zeros
    included, and NaN in either operand gives NaN (NumPy's maximum): through maxps/minps on x86,
    with the unordered lanes set to NaN."""
    n = 64
    A = te.placeholder((n,), name="A", dtype=dtype)
    B = te.placeholder((n,), name="B", dtype=dtype)
    C = te.compute((n,), lambda i: te.max(A[i], B[i]) * 2 + te.min(A[i], B[i]), name="C")
    s = te.create_schedule(C.op)
    s[C].vectorize(s[C].split(C.op.axis[0], factor=16)[1])
    f = build(s, [A, B, C], target="c")
    if native_vector_bytes() == 64 and platform.machine() == "x86_64":
        assert ("_mm512_max_ps(" if dtype == "float32" else "_mm512_max_pd(") in f.get_source()
    values = np.array([np.nan, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 3.5], dtype)
    a, b = np.meshgrid(values, values)
    a, b = a.ravel().astype(dtype), b.ravel().astype(dtype)
    c = np.full(n, 7.0, dtype)
    f(a, b, c)
    with np.errstate(invalid="ignore"):  # inf - inf is nan here as in C
        either_nan = np.isnan(a) | np.isnan(b)
        want = np.where(either_nan, np.nan, np.where(a > b, a, b)) * 2 + np.where(either_nan, np.nan,
                                                                                 np.where(a < b, a, b))
    np.testing.assert_array_equal(c, want)
    real = ~np.isnan(want)  # a NaN's sign says nothing
    np.testing.assert_array_equal(np.signbit(c[real]), np.signbit(want[real]))


@pytest.mark.parametrize("split", [True, False])
def test_adding_into_memory_uses_half_width_vectors_where_the_cpu_splits_wide_ones(monkeypatch, split):
    """On a CPU that runs 512-bit operations in halves, a vector loop that adds into a large
    array in memory (C += A * B) uses 32-byte vectors; one that only stores keeps 64."""
    from lower.backend.c import vector

    monkeypatch.setattr(vector, "native_vector_bytes", lambda: 64)
    monkeypatch.setattr(vector, "splits_wide_vectors", lambda: split)
    n = 64
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 16, 32)
    s[C].reorder(xo, yo, k, xi, yi)
    s[C].vectorize(yi)
    f = build(s, [A, B, C], target="c")
    update = next(line for line in f.get_source().splitlines() if "+ (A[" in line)
    assert ("tb_float32x8*" in update) == split and ("tb_float32x16*" in update) != split
    init = next(line for line in f.get_source().splitlines() if "= (tb_float32x" in line)
    assert "(tb_float32x16){" in init
    rng = np.random.default_rng(0)
    a, b = rng.random((n, n)).astype("float32"), rng.random((n, n)).astype("float32")
    c = np.full((n, n), np.nan, "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)
