"""The matmul the tuning tests schedule, TVM's autotvm_matmul_x86 tutorial template on it, a
small template of its columns' split and vectorization (the executors' tests), and one whose
lowering asks isl (the cost model's step limit)."""

from __future__ import annotations

import time

import schedule as te
from tune import autotvm


def matmul(n: int, l: int | None = None, m: int | None = None, dtype: str = "float32"):  # noqa: E741
    """A (n x l) times B (l x m) as C; l and m default to n."""
    l, m = l or n, m or n  # noqa: E741
    A = te.placeholder((n, l), name="A", dtype=dtype)
    B = te.placeholder((l, m), name="B", dtype=dtype)
    k = te.reduce_axis((0, l), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


@autotvm.template("tests/tutorial_matmul")
def tutorial_matmul(N, L, M, dtype):
    """The tutorial's template: both axes split in two, the reduction between outer and inner."""
    A, B, C = matmul(N, L, M, dtype)
    s = te.create_schedule(C.op)
    y, x = s[C].op.axis
    k = s[C].op.reduce_axis[0]
    cfg = autotvm.get_config()
    cfg.define_split("tile_y", y, num_outputs=2)
    cfg.define_split("tile_x", x, num_outputs=2)
    yo, yi = cfg["tile_y"].apply(s, C, y)
    xo, xi = cfg["tile_x"].apply(s, C, x)
    s[C].reorder(yo, xo, k, yi, xi)
    cfg.add_flop(2 * N * L * M)
    return s, [A, B, C]


@autotvm.template("tests/columns_matmul")
def columns_matmul(n):
    """The columns split (a knob) and their inner loop vectorized or not (a knob)."""
    A, B, C = matmul(n)
    s = te.create_schedule(C.op)
    y, x = s[C].op.axis
    cfg = autotvm.get_config()
    cfg.define_split("tile_x", x, num_outputs=2)
    xo, xi = cfg["tile_x"].apply(s, C, x)
    cfg.define_knob("vectorize", [0, 1])
    if cfg["vectorize"].val:
        s[C].vectorize(xi)
    return s, [A, B, C]


@autotvm.template("tests/padded_at_tile")
def padded_at_tile(n):
    """A stride-2 sum of three over a zero-padded input computed at the output's tile (a split
    knob): the region of the padding is found by isl."""
    A = te.placeholder((2 * n,), name="A")
    P = te.compute((2 * n + 2,), lambda i: te.if_then_else(te.all(i >= 1, i <= 2 * n), A[i - 1], 0.0), name="P")
    B = te.compute((n,), lambda i: P[2 * i] + P[2 * i + 1] + P[2 * i + 2], name="B")
    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    cfg.define_split("tile", B.op.axis[0], num_outputs=2)
    outer, _ = cfg["tile"].apply(s, B, B.op.axis[0])
    s[P].compute_at(s[B], outer)
    return s, [A, B]


def stuck_feature_job(payload: bytes, explain: bool) -> list[float]:
    """A feature lowering that never ends in time (the cost model's worker timeout)."""
    time.sleep(60)
    return []
