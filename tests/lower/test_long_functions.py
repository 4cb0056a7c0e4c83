"""A pipeline of hundreds of stages: its C function is cut into parts, each a function of its
own, and the arrays come out as NumPy computes them on both targets."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build
from lower.backend.c.outline import PART_NODES

STAGES = 250  # four statements or more each: over three parts of PART_NODES


def _pipeline(n: te.Var | int, scalar: te.Var, big: bool):
    """*STAGES* stages, each adding *scalar*; every fourth one parallel, vectorized or split.
    *big* makes the intermediates too large for the stack (they go on the heap)."""
    width = 5_500 if big else 16  # 3 x 5,500 floats: over the 64 KiB the stack takes
    A = te.placeholder((n, width), name="A")
    T, stages = A, []
    for k in range(STAGES):
        T = _stage(T, n, width, scalar, k)
        stages.append(T)
    s = te.create_schedule(T.op)
    for k, t in enumerate(stages):
        i, j = t.op.axis
        if k % 4 == 1:
            s[t].parallel(i)
        elif k % 4 == 2:
            s[t].vectorize(j)
        elif k % 4 == 3:
            s[t].split(j, factor=4)
    return s, A, T, width


# A symbolic size puts the intermediates on the heap too.
def _stage(P: te.Tensor, n, width: int, scalar: te.Var, k: int) -> te.Tensor:
    return te.compute((n, width), lambda i, j: P[i, j] + scalar.astype("float32") * (k % 3), name=f"s{k}")


@pytest.mark.parametrize(("symbolic", "big"), [(False, False), (False, True), (True, False)])
def test_a_long_pipeline_is_cut_into_parts_that_compute_what_numpy_does(default_target, symbolic, big):
    assert STAGES * 3 > 2 * PART_NODES
    rows = 3
    n = te.var("n") if symbolic else rows
    k16 = te.var("k16", "float16")
    s, A, T, width = _pipeline(n, k16, big)
    f = build(s, [A, T, k16] + ([n] if symbolic else []))
    a = np.random.default_rng(0).random((rows, width), dtype=np.float32)
    out = np.full((rows, width), np.nan, dtype=np.float32)
    scalar = np.float16(1.5)
    f(a, out, scalar, *([rows] if symbolic else []))
    expected = a.copy()
    for k in range(STAGES):
        expected = expected + np.float32(scalar) * np.float32(k % 3)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    if default_target == "c":
        source = f.get_source()
        parts = source.count("__attribute__((noinline)) static void tb_part")
        assert parts >= 3, parts
        main = source[source.index("int32_t tb_main("):]
        assert main.count("for (") == 0, "every loop is in a part"


def test_a_short_function_is_not_cut(default_target):
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2, name="B")
    C = te.compute((8,), lambda i: B[i] + 1, name="C")
    f = build(te.create_schedule(C.op), [A, C])
    a = np.arange(8, dtype=np.float32)
    c = np.zeros(8, np.float32)
    f(a, c)
    np.testing.assert_array_equal(c, a * 2 + 1)
    if default_target == "c":
        assert "tb_part" not in f.get_source()
