"""What a call is checked for before anything runs, beyond its arrays' dtypes and shapes.

- Every scalar argument and shape variable fits its variable's dtype (a C ``int32_t`` would wrap).
- Every split factor (or number of parts) given by a variable is positive, and every tensor has
  at least 0 elements along each dimension: a loop over a negative extent runs no iteration and
  would leave an output unwritten without a word.
- No array the function writes overlaps another argument's array, unless the two are the same
  array and the function is in place for them (:mod:`lower.inplace`).
- Where the function's reads depend on its variables (symbolic shapes), none leaves its tensor
  for these values (:mod:`bound.inference.read_check`; checked once per set of values).

The same checks run on every target, so that C and the checked Python target raise the same
errors for the same call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bound.inference.read_check import ReadCheck
from lower.inplace import InPlace
from lower.lower import LoweredFunc
from schedule.base.errors import ScheduleError
from schedule.ir.dtype import int_range, is_float
from schedule.ir.evaluate import evaluate
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import free_vars
from schedule.operation.tensor import Tensor
from schedule.schedule.relations import Split

#: An exact overlap test that needs more work than this is taken as an overlap.
OVERLAP_WORK = 100_000
#: The values of a function's variables whose reads were found in bounds, kept up to this many.
READS_KEPT = 4096


@dataclass(frozen=True)
class Condition:
    """``expr >= least`` must hold at every call; *what* names it in the error."""

    expr: Expr
    least: int
    what: str


@dataclass
class CallChecks:
    """The checks of one built function (see the module)."""

    ranges: list[tuple[Var, int, int]]
    conditions: list[Condition]
    in_place: set[tuple[int, int]]  # (input, output) positions among the tensors that may alias
    reads: ReadCheck | None = None  # reads that depend on the call's variables
    reads_ok: set[tuple[int, ...]] = field(default_factory=set)  # their values found in bounds

    #: Whether calls are checked for overlapping arguments.
    overlap: bool = True

    @classmethod
    def none(cls) -> CallChecks:
        """No checks (``build(..., checks=False)``): the caller vouches for every call."""
        return cls([], [], set(), None, overlap=False)

    @classmethod
    def of(cls, func: LoweredFunc, writes: Sequence[bool]) -> CallChecks:
        ranges = [(v, *int_range(v.dtype)) for v in func.params if not is_float(v.dtype)]
        conditions: list[Condition] = []
        if func.schedule is not None:
            for st in func.schedule.stages:
                for rel in st.relations:
                    if isinstance(rel, Split):
                        how, e = ("factor", rel.factor) if rel.factor is not None else ("nparts", rel.nparts)
                        if e is not None and free_vars([e]):
                            conditions.append(Condition(e, 1, f"stage '{st.name}' splits '{rel.parent.name}' "
                                                              f"with {how}={e}"))
                for k in range(st.op.num_outputs):
                    t = st.op.output(k)
                    for d, e in enumerate(t.shape):
                        if free_vars([e]):
                            conditions.append(Condition(e, 0, f"tensor '{t.name}' has {e} elements in dimension {d}"))
        tensors = func.tensors
        buffers = [func.buffers[t] for t in tensors]
        walked = InPlace(func.body)
        pairs = {(i, o) for i, w_in in enumerate(writes) if not w_in for o, w_out in enumerate(writes)
                 if w_out and tensors[i].dtype == tensors[o].dtype and walked.pair(buffers[i], buffers[o])}
        return cls(ranges, conditions, pairs, func.reads)

    def check_values(self, env: dict[Var, Any]) -> None:
        """Refuse scalar values that do not fit, or make a factor or an extent too small.

        :raises ValueError: naming the variable (or the split, or the tensor) and the range.
        """
        for v, lo, hi in self.ranges:
            value = env.get(v)
            if value is not None and not lo <= value <= hi:
                raise ValueError(f"'{v.name}' is {value}, outside the range of its dtype {v.dtype} "
                                 f"[{lo}, {hi}]; declare it te.var('{v.name}', 'int64') for larger values")
        for c in self.conditions:
            value = evaluate(c.expr, env)
            if value < c.least:
                given = ", ".join(f"{v.name} = {env[v]}" for v in free_vars([c.expr]) if v in env)
                need = "positive" if c.least == 1 else "at least 0"
                raise ValueError(f"{c.what}, which is {value} for {given}; it must be {need}")
        if self.reads is not None:
            key = tuple(env[v] for v in self.reads.variables)
            if key not in self.reads_ok:
                outside = self.reads.find({v: env[v] for v in self.reads.variables})
                if outside is not None:
                    given = ", ".join(f"{v.name} = {env[v]}" for v in self.reads.variables)
                    raise ScheduleError(f"{outside} (for {given}); a read outside a tensor reads memory that is "
                                        "not its own")
                if len(self.reads_ok) >= READS_KEPT:
                    self.reads_ok.clear()
                self.reads_ok.add(key)

    def check_overlap(self, tensors: Sequence[Tensor], arrays: Sequence[np.ndarray], writes: Sequence[bool]) -> None:
        """Refuse arrays the function writes that share memory with another argument's.

        :raises ValueError: naming the two arguments.
        """
        if not self.overlap:
            return
        for o, written in enumerate(writes):
            if not written:
                continue
            for k, a in enumerate(arrays):
                if k == o or (writes[k] and k < o) or not _overlap(arrays[o], a):
                    continue
                if (k, o) in self.in_place and _same_view(a, arrays[o]):
                    continue
                what = "is written" if writes[k] else "is read"
                raise ValueError(f"arguments '{tensors[o].name}' and '{tensors[k].name}' share memory, and "
                                 f"'{tensors[o].name}' is written while '{tensors[k].name}' {what}; pass "
                                 "arrays that do not overlap (a copy: .copy())")


#: NumPy 2 keeps byte_bounds in numpy.lib.array_utils; NumPy 1 at the top level.
_byte_bounds = getattr(getattr(np.lib, "array_utils", np), "byte_bounds", None) or np.byte_bounds


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether *a* and *b* share an element: their byte ranges first, then exactly."""
    if a.size == 0 or b.size == 0:
        return False
    a_lo, a_hi = _byte_bounds(a)
    b_lo, b_hi = _byte_bounds(b)
    if a_hi <= b_lo or b_hi <= a_lo:
        return False
    try:
        return bool(np.shares_memory(a, b, max_work=OVERLAP_WORK))
    except np.exceptions.TooHardError:
        return True


def _same_view(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether *a* and *b* are the same elements in the same order."""
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.shape == b.shape
            and a.strides == b.strides and a.dtype == b.dtype)
