"""Integer points for the solver tests: an expression's value at a point (simplified to a
constant), whether relations hold there, and the points of a box."""

from __future__ import annotations

import itertools

from bound import Analyzer
from schedule.ir import arith
from schedule.ir.expr import IntImm
from schedule.ir.functor import substitute


def value(e, env):
    """The constant *e* is with each variable of *env* set to its number."""
    e = Analyzer().simplify(substitute(arith.convert(e), {v: arith.const(x, v.dtype) for v, x in env.items()}))
    assert isinstance(e, IntImm), e
    return e.value


def holds(relations, env):
    return all(value(r, env) for r in relations)


def points(box):
    """Every integer point of *box*, a list of half-open (low, high) pairs."""
    return itertools.product(*(range(lo, hi) for lo, hi in box))
