"""The C target: generated C compiled by the system compiler gives NumPy's results and the
Python target's, honours the schedule's loop kinds, and reports what it cannot compile."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import schedule as te
from lower import LoweringError, build, reference
from lower.backend.c import compile as c_compile
from lower.build import CompilerWarning

from ..strategies import describe, pipelines, schedules

build_module = importlib.import_module("lower.build")
pytestmark = pytest.mark.skipif(c_compile.find_compiler() is None, reason="no C compiler")
BOTH = pytest.mark.parametrize("exact", [False, True])


def _both_targets(s, args, arrays, exact=True):
    """Outputs of the C and the Python build, each starting as NaN (or -1)."""
    results = []
    for target in ("c", "python"):
        f = build(s, args, exact=exact, target=target)
        outs = [np.full([int(e.value) for e in t.shape], np.nan if t.dtype.startswith("float") else -1, t.dtype)
                for t in args[len(arrays):]]
        f(*arrays, *outs)
        results.append(outs)
    return results


@BOTH
def test_tiled_matmul_with_a_stage_at_the_outer_loop(exact):
    n = 48
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] * 2 + 1, name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(B[i, k] * A[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 16)
    s[B].compute_at(s[C], xo)
    s[C].parallel(xo)
    s[C].vectorize(yi)
    a = np.random.default_rng(1).integers(-3, 4, (n, n)).astype("float32")
    (c_out,), (py_out,) = _both_targets(s, [A, C], [a], exact)
    np.testing.assert_array_equal(c_out, (a * 2 + 1) @ a)
    np.testing.assert_array_equal(c_out, py_out)
    src = build(s, [A, C], exact=exact, target="c").get_source()
    assert "#pragma omp parallel for" in src and "#pragma omp simd" in src
    assert "int32_t tb_main(float* restrict A, float* restrict C, tb_ctx_t* tb_ctx)" in src


def test_unrolled_loops_are_written_out():
    A = te.placeholder((20,), name="A")
    B = te.compute((20,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=4)
    s[B].unroll(xi)
    f = build(s, [A, B], target="c")
    src = f.get_source()
    assert "i_inner" not in src and src.count("B[") == 4
    a = np.arange(20, dtype="float32")
    b = np.full(20, np.nan, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, a + 1)


def test_floor_division_and_remainder_of_negative_operands_follow_tvm():
    A = te.placeholder((12,), name="A", dtype="int32")
    outs = [te.compute((12,), lambda i: te.floordiv(A[i], 3), name="D0"),
            te.compute((12,), lambda i: te.floordiv(A[i], -4), name="D1"),
            te.compute((12,), lambda i: te.floormod(A[i], 3), name="M0"),
            te.compute((12,), lambda i: te.floormod(A[i], -4), name="M1"),
            te.compute((12,), lambda i: te.truncmod(A[i], 5), name="T"),
             te.compute((12,), lambda i: te.div(A[i], 5), name="Q")]
    s = te.create_schedule([t.op for t in outs])
    a = np.arange(-6, 6, dtype="int32")
    c_outs, py_outs = _both_targets(s, [A, *outs], [a])
    expected = [a // 3, a // -4, a % 3, a % -4, np.fmod(a, 5), np.trunc(a / 5).astype("int32")]
    for got, py, want in zip(c_outs, py_outs, expected):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(py, want)


def test_narrow_integers_wrap_in_their_own_dtype():
    A = te.placeholder((6,), name="A", dtype="int8")
    B = te.compute((6,), lambda i: A[i] * te.const(3, "int8") + te.const(100, "int8"), name="B")
    s = te.create_schedule(B.op)
    a = np.array([-100, -50, 0, 9, 50, 100], dtype="int8")
    b = np.full(6, -1, "int8")
    build(s, [A, B], target="c")(a, b)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(b, a * np.int8(3) + np.int8(100))


def _math_of(A):
    return te.compute((16,), lambda i: te.exp(A[i]) + te.sqrt(te.abs(A[i])) + te.sigmoid(A[i]), name="B")


def test_math_calls_in_float32_and_float64():
    for dtype in ("float32", "float64"):
        A = te.placeholder((16,), name="A", dtype=dtype)
        B = _math_of(A)
        s = te.create_schedule(B.op)
        a = np.linspace(-3, 3, 16).astype(dtype)
        (b,), (py,) = _both_targets(s, [A, B], [a])
        want = np.exp(a) + np.sqrt(np.abs(a)) + 1 / (1 + np.exp(-a))
        np.testing.assert_allclose(b, want, rtol=1e-6 if dtype == "float32" else 1e-12)
        np.testing.assert_allclose(b, py, rtol=1e-6 if dtype == "float32" else 1e-12)


def test_symbolic_shapes_one_build_many_sizes():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 3, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    f = build(s, [A, B], target="c")
    for size in (5, 8, 29):
        a = np.arange(size, dtype="float32")
        b = np.full(size, np.nan, "float32")
        f(a, b)
        np.testing.assert_array_equal(b, a * 3)


def test_large_temporaries_go_on_the_heap():
    A = te.placeholder((300, 300), name="A")
    B = te.compute((300, 300), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((300, 300), lambda i, j: B[j, i] * 2, name="C")
    s = te.create_schedule(C.op)
    f = build(s, [A, C], target="c")
    assert "tb_alloc(" in f.get_source() and "free(B)" in f.get_source()
    a = np.random.default_rng(2).random((300, 300)).astype("float32")
    c = np.full((300, 300), np.nan, "float32")
    f(a, c)
    np.testing.assert_array_equal(c, (a.T + 1) * 2)


def test_a_non_contiguous_output_is_written():
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda i, j: A[i, j] + 1, name="B")
    s = te.create_schedule(B.op)
    a = np.arange(16, dtype="float32").reshape(4, 4)
    out = np.full((4, 4), np.nan, "float32", order="F")
    build(s, [A, B], target="c")(a, out)
    np.testing.assert_array_equal(out, a + 1)


def test_the_same_schedule_compiles_once(tmp_path, monkeypatch):
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(tmp_path))
    A = te.placeholder((7,), name="A")
    B = te.compute((7,), lambda i: A[i] - 1, name="B")
    s = te.create_schedule(B.op)
    build(s, [A, B], target="c")
    first = sorted(tmp_path.glob("*.so"))
    f = build(s, [A, B], target="c")
    assert len(first) == 1 and sorted(tmp_path.glob("*.so")) == first
    a = np.arange(7, dtype="float32")
    b = np.full(7, np.nan, "float32")
    f(a, b)  # the cached kernel computes
    np.testing.assert_array_equal(b, a - 1)


def test_a_compile_error_quotes_the_compiler_and_the_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(tmp_path))
    with pytest.raises(LoweringError, match=r"refused the generated code: .*line 2: int x = y;"):
        c_compile.compile_c("int f(void) {\nint x = y;\nreturn x; }\n")


def test_an_unknown_target_is_a_value_error(monkeypatch):
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(ValueError, match="build: target: no target 'gpu'; the targets are 'python', 'llvm', 'c'"):
        build(s, [A, B], target="gpu")
    monkeypatch.setenv("TEBOUND_TARGET", "fpga")
    with pytest.raises(ValueError, match=r"build: \$TEBOUND_TARGET: no target 'fpga'"):
        build(s, [A, B])


def test_the_default_is_c_and_checks_choose_python(monkeypatch):
    monkeypatch.delenv("TEBOUND_TARGET", raising=False)
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    a = np.arange(8, dtype="float32")
    for f, target in ((build(s, [A, B]), "c"), (build(s, [A, B], checks=True), "python"),
                      (build(s, [A, B], checks=False, target="python"), "python")):
        assert f.target == target
        b = np.full(8, np.nan, "float32")
        f(a, b)
        np.testing.assert_array_equal(b, a + 1)
    with pytest.raises(ValueError, match="checks=True asks for the checked execution.*target='python'"):
        build(s, [A, B], checks=True, target="c")


def test_without_a_compiler_the_python_target_runs_with_a_warning(monkeypatch):
    monkeypatch.delenv("TEBOUND_TARGET", raising=False)
    monkeypatch.setattr(build_module, "find_compiler", lambda: None)
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 3, name="B")
    s = te.create_schedule(B.op)
    for target in (None, "c"):
        with pytest.warns(CompilerWarning, match="no C compiler found.*Python target"):
            f = build(s, [A, B], target=target)
        assert f.target == "python" and f.get_source().startswith("def kernel(")
        a, b = np.arange(8, dtype="float32"), np.full(8, np.nan, "float32")
        f(a, b)
        np.testing.assert_array_equal(b, a * 3)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_random_schedules_agree_with_the_reference_in_c(data):
    p = data.draw(pipelines(max_computes=4, max_extent=5))
    s = data.draw(schedules(p))
    note(describe(s))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    inputs = {t: rng.integers(-3, 4, size=p.shape).astype("float32") for t in p.placeholders}
    expected = reference(p.outputs, inputs)
    args = [*p.placeholders, *p.outputs]
    for exact in (False, True):
        try:
            f = build(s, args, exact=exact, target="c")
        except LoweringError as err:
            assert "target='python'" in str(err) or "cannot" in str(err) or "attach" in str(err)
            return
        outs = [np.full(p.shape, np.nan, dtype="float32") for _ in p.outputs]
        f(*(inputs[t] for t in p.placeholders), *outs)
        for t, out in zip(p.outputs, outs):
            assert np.array_equal(out, expected[t]), (t.name, exact)


def test_an_extern_returning_no_number_is_an_error_not_a_silent_zero():
    te.register_func("test_c.pair", lambda x: (x, x), override=True)
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: te.call_extern("float32", "test_c.pair", A[i]), name="B")
    f = build(te.create_schedule(B.op), [A, B], target="c")
    with pytest.raises(TypeError, match="external function 'test_c.pair' returned tuple, but the call needs a float32 number"):
        f(np.ones(4, "float32"), np.zeros(4, "float32"))


def test_a_packed_function_may_return_anything():
    te.register_func("test_c.copy_pair", lambda a, b: (np.copyto(b, a + 1), "done"), override=True)
    A = te.placeholder((4,), name="A")
    B = te.extern((4,), [A], lambda ins, outs: te.call_packed("test_c.copy_pair", ins[0], outs[0]), name="B")
    b = np.full(4, np.nan, "float32")
    build(te.create_schedule(B.op), [A, B], target="c")(np.arange(4, dtype="float32"), b)
    np.testing.assert_array_equal(b, np.arange(4) + 1)
