"""``build``: a lowered schedule as a Python callable on NumPy arrays."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from lower.codegen import compile_source, python_source
from lower.lower import LoweredFunc, lower
from schedule import arith
from schedule.schedule import Schedule
from schedule.tensor import PlaceholderOp, Tensor


class BuiltFunc:
    """Call with one NumPy array per argument tensor; writes the non-input arguments in place."""

    def __init__(self, func: LoweredFunc, checks: bool) -> None:
        self.lowered = func
        self.source = python_source(func.body, [func.buffers[t] for t in func.args], checks=checks)
        self._kernel = compile_source(self.source)

    def __call__(self, *arrays: Any) -> None:
        args = self.lowered.args
        if len(arrays) != len(args):
            raise TypeError(f"expected {len(args)} arrays ({', '.join(t.name for t in args)}), "
                            f"got {len(arrays)}")
        flat = []
        for t, a in zip(args, arrays):
            if not isinstance(a, np.ndarray):
                raise TypeError(f"argument '{t.name}' must be a NumPy array, not {type(a).__name__}")
            lay = self.lowered.layouts.get(t)
            shape = (lay.physical_size,) if lay is not None else tuple(arith.value_of(e) for e in t.shape)
            if a.shape != shape:
                what = (f"its layout {lay} holds {shape[0]} elements" if lay is not None
                        else f"the tensor's shape is {shape}")
                raise ValueError(f"argument '{t.name}' has shape {a.shape}; {what}")
            flat.append(a.reshape(-1).tolist())
        self._kernel(*flat)
        for t, a, values in zip(args, arrays, flat):
            if not isinstance(t.op, PlaceholderOp):
                a[...] = np.asarray(values, dtype=a.dtype).reshape(a.shape)


def build(s: Schedule, args: Sequence[Tensor], *, exact: bool = True, checks: bool = True) -> BuiltFunc:
    """Lower *s* and compile it to a Python function over the arrays of *args*.

    :arg checks: check every load and store against the realized region (an
        :class:`~lower.codegen.OutOfBoundsError` names the buffer, the index and the region).
    """
    return BuiltFunc(lower(s, args, exact=exact), checks)
