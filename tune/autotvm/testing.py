"""Helpers for tests of the tuning machinery, as TVM's ``tvm.testing.autotvm``: a runner that
times nothing, a matmul template registered as ``testing/matmul`` (64 configurations at
n=128), a sample task of it and sample records."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

import schedule as te
from lower.target import Target
from tune.autotvm.measure import MeasureInput, MeasureResult, Runner
from tune.autotvm.task import Task, create, get_config, template


class DummyRunner(Runner):
    """A runner that builds nothing it is given and reports a random cost in [0, 1) s."""

    def __init__(self) -> None:
        super().__init__(1, 1)

    def run(self, measure_inputs: Sequence[Any], build_results: Sequence[Any]) -> list[MeasureResult]:
        return [MeasureResult((np.random.random(),), 0, 0.2, time.time()) for _ in measure_inputs]

    def get_build_kwargs(self) -> dict[str, Any]:
        return {}


def _matmul_compute(n: int, l: int, m: int, dtype: str, reduce_len: int) -> tuple[Any, Any, Any]:  # noqa: E741
    a = te.placeholder((n, l), name="A", dtype=dtype)
    b = te.placeholder((l, m), name="B", dtype=dtype)
    k = te.reduce_axis((0, reduce_len), name="k")
    c = te.compute((n, m), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    return a, b, c


@template("testing/matmul")
def matmul(n: int, l: int, m: int, dtype: str) -> tuple[Any, list[Any]]:  # noqa: E741
    """A matmul with the rows and columns split by knobs; a column tile of 1 leaves the
    columns unsplit, so configurations have different numbers of loops."""
    a, b, c = _matmul_compute(n, l, m, dtype, l)
    s = te.create_schedule(c.op)
    y, x = s[c].op.axis
    k = s[c].op.reduce_axis[0]
    cfg = get_config()
    cfg.define_split("tile_y", y, num_outputs=2)
    cfg.define_split("tile_x", x, num_outputs=2)
    yo, yi = cfg["tile_y"].apply(s, c, y)
    if cfg["tile_x"].size[-1] > 1:
        xo, xi = cfg["tile_x"].apply(s, c, x)
        s[c].reorder(yo, xo, k, yi, xi)
    else:
        s[c].reorder(yo, k, yi, x)
    return s, [a, b, c]


@template("testing/bad_matmul")
def bad_matmul(n: int, l: int, m: int, dtype: str) -> tuple[Any, list[Any]]:  # noqa: E741
    """On a target with the key ``bad_device``, a matmul that reads one row too few of B;
    elsewhere :func:`matmul`."""
    current = Target.current()
    if current is not None and "bad_device" in current.keys:
        a, b, c = _matmul_compute(n, l, m, dtype, l - 1)
        s = te.create_schedule(c.op)
        y, x = s[c].op.axis
        cfg = get_config()
        cfg.define_split("tile_y", y, num_outputs=2)
        cfg.define_split("tile_x", x, num_outputs=2)
        return s, [a, b, c]
    return matmul(n, l, m, dtype)


def get_sample_task(n: int = 128) -> tuple[Task, Target]:
    """The ``testing/matmul`` task at size *n* on llvm, and its target."""
    target = Target("llvm")
    return create("testing/matmul", args=(n, n, n, "float32"), target=target), target


def get_sample_records(n: int) -> list[tuple[MeasureInput, MeasureResult]]:
    """*n* records of the sample task: configuration i % 64 with cost i + 1 s."""
    task, target = get_sample_task()
    return [(MeasureInput(target, task, task.config_space.get(i % len(task.config_space))),
             MeasureResult((i + 1,), 0, i, time.time())) for i in range(n)]
