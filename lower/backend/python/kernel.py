"""A lowered function as Python source run on flat lists: the checked reference target."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from lower.backend.python.runtime import InputList
from lower.backend.python.stmt import compile_source, python_source
from lower.ir.stmt import Buffer, Stmt
from schedule.ir.expr import Var


class PythonKernel:
    """The Python function of *body* over *buffers* and the scalar *params*; with *checks*,
    every load and store is checked against its realized region. *fast_math* and *libm* change
    nothing: floats are computed in double precision, rounded where stored."""

    def __init__(self, body: Stmt, buffers: Sequence[Buffer], params: Sequence[Var], checks: bool = True,
                 fast_math: bool = False, libm: bool = False, fp_contract: bool = False) -> None:
        self.source = python_source(body, buffers, params, checks=checks)
        self._fn = compile_source(self.source)

    def __call__(self, arrays: Sequence[np.ndarray], values: Sequence[Any], writes: Sequence[bool]) -> None:
        """Run on lists copied from *arrays*; the arrays *writes* marks get the results."""
        flat = [a.reshape(-1).tolist() if written else InputList(a.reshape(-1).tolist())
                for a, written in zip(arrays, writes)]
        self._fn(*flat, *values)
        for a, items, written in zip(arrays, flat, writes):
            if written:
                a[...] = np.asarray(items, dtype=a.dtype).reshape(a.shape)
