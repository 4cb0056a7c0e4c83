"""``build``: a lowered schedule as a Python callable on NumPy arrays."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bound.operation import bounds_of
from lower.arguments import check_bound_vars
from lower.backend import compile_source, python_source
from lower.binding import bind_shapes, check_array
from lower.intrin_lowering import lower_intrinsics
from lower.lower import LoweredFunc, lower
from schedule.checks import check_flag, check_schedule
from schedule.expr import Var
from schedule.schedule import Schedule
from schedule.tensor import Tensor

#: The target name intrinsic lowering rules are looked up under (beside "default").
TARGET = "python"


class BuiltFunc:
    """Call with one NumPy array per argument tensor (an int per scalar argument); writes the
    computed tensors' arrays in place.

    Shape variables take their values from the arrays' shapes; arrays whose shapes or dtypes
    disagree with their tensors are refused before anything runs.
    """

    def __init__(self, func: LoweredFunc, checks: bool) -> None:
        if func.schedule is not None:
            check_bound_vars(func.schedule, func.params)
        self.lowered = func
        body = lower_intrinsics(func.body, TARGET)
        self.source = python_source(body, [func.buffers[t] for t in func.tensors], func.params, checks=checks)
        self._kernel = compile_source(self.source)

    def __call__(self, *arrays: Any) -> None:
        args = self.lowered.args
        if len(arrays) != len(args):
            raise TypeError(f"expected {len(args)} arguments ({', '.join(a.name for a in args)}), "
                            f"got {len(arrays)}")
        for a, value in zip(args, arrays):
            if isinstance(a, Tensor):
                check_array(a, value, writes=not bounds_of(a.op).is_input(a.op))
        env = bind_shapes(args, arrays, self.lowered.layouts)
        flat = [value.reshape(-1).tolist() for a, value in zip(args, arrays) if isinstance(a, Tensor)]
        self._kernel(*flat, *(env[v] for v in self.lowered.params))
        tensors = [(a, value) for a, value in zip(args, arrays) if isinstance(a, Tensor)]
        for (t, a), values in zip(tensors, flat):
            if not bounds_of(t.op).is_input(t.op):
                a[...] = np.asarray(values, dtype=a.dtype).reshape(a.shape)


def build(s: Schedule, args: Sequence[Tensor | Var], *, exact: bool = True, checks: bool = True) -> BuiltFunc:
    """Lower *s* and compile it to a Python function over the arrays of *args*.

    :arg checks: check every load and store against the realized region (an
        :class:`~lower.OutOfBoundsError` names the buffer, the index and the region).
    :raises TypeError: for a schedule or an argument of the wrong kind.
    :raises ValueError: for an argument outside the schedule, or a variable that no argument
        binds (naming it and the stage that uses it).
    """
    check_schedule("build", s)
    check_flag("build", "exact", exact)
    check_flag("build", "checks", checks)
    return BuiltFunc(lower(s, args, exact=exact), checks)
