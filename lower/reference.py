"""Tensors computed directly from their definitions, with no schedule: the oracle for ``build``.

Values are Python numbers (exact integers, double-precision floats), as in built functions,
and become NumPy arrays of each tensor's dtype at the end.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from schedule import arith
from schedule.ir.evaluate import evaluate
from schedule.operation.compute import ComputeOp
from schedule.operation.graph import post_dfs_order, read_graph
from schedule.operation.placeholder import PlaceholderOp
from schedule.operation.tensor import Tensor


def reference(outputs: Tensor | Sequence[Tensor], inputs: Mapping[Tensor, np.ndarray]) -> dict[Tensor, np.ndarray]:
    """Every tensor that *outputs* depend on, evaluated element by element from its definition."""
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    roots = list(dict.fromkeys(t.op for t in outs))
    values: dict[Tensor, dict[tuple[int, ...], Any]] = {}
    for t, a in inputs.items():
        values[t] = {idx: v for idx, v in np.ndenumerate(a.astype(object) if a.dtype != object else a)}

    def load(t: Tensor, idx: tuple[int, ...]) -> Any:
        try:
            return values[t][idx]
        except KeyError:
            if t not in values:
                raise ValueError(f"reference: no values for input '{t.name}'") from None
            raise IndexError(f"reference: {t.name}{list(idx)} is outside its shape") from None

    for op in post_dfs_order(roots, read_graph(roots)):
        if isinstance(op, PlaceholderOp):
            continue
        if not isinstance(op, ComputeOp):
            raise ValueError(f"reference: cannot evaluate {type(op).__name__} '{op.name}'")
        shape = [arith.value_of(e) for e in op.output(0).shape]
        tables: list[dict] = [{} for _ in range(op.num_outputs)]
        for point in itertools.product(*(range(n) for n in shape)):
            env = {iv.var: p for iv, p in zip(op.axis, point)}
            for k in range(op.num_outputs):
                tables[k][point] = evaluate(op.body[k], env, load)
        for k in range(op.num_outputs):
            values[op.output(k)] = tables[k]
    result = {}
    for t, table in values.items():
        shape = tuple(arith.value_of(e) for e in t.shape)
        arr = np.zeros(shape, dtype=t.dtype)
        for idx, v in table.items():
            arr[idx] = v
        result[t] = arr
    return result
