"""``build(..., fp_contract=True)`` (and ``"llvm -fp-contract=fast"``): ``a * b + c`` becomes
one fused multiply-add, rounded once, and nothing else of fast math changes; without it C rounds
twice, as NumPy does. Checked against exact references: on values in [1, 2) a float32 product
and sum are exact in float64, so the fused result is that sum rounded once to float32."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build
from lower.backend.c.compile import compile_flags, cpu_features, features_line
from lower.build import load_module
from lower.target import Target

FMA = pytest.mark.skipif("fma" not in cpu_features() and "neon" not in cpu_features(),
                         reason="the CPU has no fused multiply-add: contraction changes nothing here")
N = 4096


def _multiply_add():
    A, B, C = (te.placeholder((N,), name=n) for n in "ABC")
    D = te.compute((N,), lambda i: A[i] * B[i] + C[i], name="D")
    s = te.create_schedule(D.op)
    outer, inner = s[D].split(D.op.axis[0], factor=8)
    s[D].vectorize(inner)
    return s, [A, B, C, D]


def _inputs():
    rng = np.random.default_rng(7)
    return [rng.uniform(1, 2, N).astype("float32") for _ in range(3)]


def _run(f, a, b, c):
    d = np.full(N, np.nan, "float32")
    f(a, b, c, d)
    return d


def _references(a, b, c):
    fused = (a.astype("float64") * b.astype("float64") + c.astype("float64")).astype("float32")
    separate = (a * b) + c  # NumPy: the product rounded, then the sum
    return fused, separate


@FMA
def test_contraction_fuses_the_multiply_add_and_rounds_once():
    s, args = _multiply_add()
    a, b, c = _inputs()
    fused, separate = _references(a, b, c)
    assert (fused != separate).sum() > N // 20  # the two roundings differ often enough to see
    np.testing.assert_array_equal(_run(build(s, args, "c"), a, b, c), separate)
    np.testing.assert_array_equal(_run(build(s, args, "c", fp_contract=True), a, b, c), fused)
    # TVM's spelling, on the target.
    np.testing.assert_array_equal(_run(build(s, args, "llvm -fp-contract=fast"), a, b, c), fused)
    # The option is the C compiler's: the Python target computes as it always does.
    np.testing.assert_array_equal(_run(build(s, args, "python", fp_contract=True), a, b, c),
                                  _run(build(s, args, "python"), a, b, c))


@FMA
def test_an_exported_contracting_kernel_loads_contracting(tmp_path):
    s, args = _multiply_add()
    a, b, c = _inputs()
    path = tmp_path / "fused.so"
    build(s, args, "c", fp_contract=True).export_library(str(path))
    loaded = load_module(str(path))
    assert loaded.fp_contract is True
    np.testing.assert_array_equal(_run(loaded, a, b, c), _references(a, b, c)[0])


def test_contraction_changes_one_flag_and_fast_math_more():
    strict, contract, fast = compile_flags(), compile_flags(fp_contract=True), compile_flags(fast_math=True)
    assert "-ffp-contract=off" in strict and "-ffp-contract=fast" not in strict
    assert set(contract) ^ set(strict) == {"-ffp-contract=off", "-ffp-contract=fast"}
    assert "-ffast-math" in fast and "-ffast-math" not in contract


def test_bad_contraction_options_are_refused_by_name():
    s, args = _multiply_add()
    with pytest.raises(TypeError, match="fp_contract"):
        build(s, args, "c", fp_contract="yes")
    with pytest.raises(ValueError, match="-fp-contract is fast, on or off, not 'maybe'"):
        Target("llvm -fp-contract=maybe")
    assert Target("llvm -fp-contract=off").fp_contract is False and Target("llvm").fp_contract is False


def test_the_features_line_names_what_the_compiler_enables():
    line = features_line()
    assert line.startswith("CPU features (gcc -march=native): ")
    named = line.split(": ", 1)[1].split()
    assert set(named) <= cpu_features() or named == ["none", "found"]


def test_the_option_travels_with_a_tasks_target_to_the_tuners_builds():
    # Tuning jobs rebuild a trial in a worker process from the target's text.
    s, args = _multiply_add()
    text = str(Target("llvm -fp-contract=fast"))
    assert "-fp-contract=fast" in text and Target(text).fp_contract
    assert build(s, args, target=text).fp_contract is True
    assert build(s, args, target=str(Target("llvm"))).fp_contract is False
