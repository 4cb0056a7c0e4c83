"""A task's flops are counted from its computes when the template gives none (TVM's
compute_flop): hand-counted cases."""

from __future__ import annotations

import pytest

import schedule as te
from tune import autotvm
from tune.autotvm.flop import compute_flop

from .templates import matmul


@autotvm.template("test_flop/matmul_relu")
def matmul_relu(n, l, m):  # noqa: E741
    A, B, C = matmul(n, l, m)
    D = te.compute(C.shape, lambda i, j: te.if_then_else(C[i, j] > 0, C[i, j], 0.0), name="D")
    s = te.create_schedule(D.op)
    cfg = autotvm.get_config()
    cfg.define_knob("unroll", [0, 1])
    return s, [A, B, D]


@autotvm.template("test_flop/symbolic")
def symbolic():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2, name="B")
    autotvm.get_config().define_knob("k", [1])
    return te.create_schedule(B.op), [A, B]


def test_a_matmul_with_a_relu_counts_as_tvm_does():
    task = autotvm.task.create("test_flop/matmul_relu", args=(8, 5, 6))
    # C: 8*6 points, 5 steps of one multiply and one add; D: a comparison per point (the select
    # counts its condition and its costlier branch, a read).
    assert task.flop == 8 * 6 * 5 * 2 + 8 * 6 * 1


def test_a_count_given_by_the_template_wins():
    task = autotvm.task.create("tests/tutorial_matmul", args=(16, 16, 16, "float32"))
    assert task.flop == 2 * 16 ** 3


def test_what_cannot_be_counted_is_zero_for_a_task_and_an_error_by_itself():
    assert autotvm.task.create("test_flop/symbolic", args=()).flop == 0.0
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i], name="B")
    with pytest.raises(ValueError, match="no floating-point operation found"):
        compute_flop(te.create_schedule(B.op))


def test_select_and_min_max_count_as_tvm_counts_them():
    A = te.placeholder((3, 4), name="A")
    B = te.compute((3, 4), lambda i, j: te.if_then_else(A[i, j] > 1, A[i, j] * 2 + 1, A[i, j]), name="B")
    assert compute_flop(te.create_schedule(B.op)) == 12 * (1 + 2)
    k = te.reduce_axis((0, 4), name="k")
    M = te.compute((3,), lambda i: te.max(A[i, k] * 3, axis=k), name="M")
    assert compute_flop(te.create_schedule(M.op)) == 3 * 4 * (1 + 1)


def test_index_arithmetic_inside_a_read_is_not_counted():
    A = te.placeholder((20, 9), name="A")
    B = te.compute((9, 4), lambda i, j: A[i * 2 + j, (j * 3 + i) % 9] * 3.0, name="B")
    assert compute_flop(te.create_schedule(B.op)) == 9 * 4 * 1
    C = te.compute((9,), lambda i: A[i + 1, i], name="C")
    with pytest.raises(RuntimeError, match="no floating-point operation found"):
        compute_flop(te.create_schedule(C.op))
