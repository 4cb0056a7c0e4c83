"""TVM's ``tvm.testing`` checks of boolean expressions and integer constraint systems, by
enumeration: the expression is built as a kernel over every point of the variables' ranges
and run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import schedule as te
from bound import Analyzer
from bound.arith.int_solver import IntConstraints, IntConstraintsTransform
from lower import build
from schedule.ir import arith
from schedule.ir.expr import IntImm, Var
from schedule.ir.functor import substitute
from schedule.ir.itervar import Range


def check_bool_expr_is_true(bool_expr: Any, vranges: Mapping[Var, Range], cond: Any = None) -> None:
    """Raise AssertionError, with a counterexample, unless *bool_expr* holds (where *cond*
    does) at every point of *vranges* (constant ranges)."""
    if cond is not None:
        bool_expr = arith.logical_or(arith.logical_not(cond), bool_expr)
    items = list(vranges.items())
    if not all(isinstance(r, Range) and isinstance(r.min, IntImm) and isinstance(r.extent, IntImm) for _, r in items):
        raise TypeError(f"check_bool_expr_is_true: the ranges are enumerated, so each is a Range of constants, got "
                        f"{dict(vranges)!r}")
    shape = [int(r.extent.value) for _, r in items]
    if not items:
        shape = [1]

    def body(*us: Any) -> Any:
        vmap = {v: arith.add(u, r.min) for (v, r), u in zip(items, us)}
        return arith.cast("int8", substitute(arith.convert(bool_expr), vmap))
    table = te.compute(shape, body, name="check")
    out = np.zeros(shape, "int8")
    build(te.create_schedule(table.op), [table])(out)
    if not out.all():
        point = np.argwhere(out == 0)[0]
        example = ", ".join(sorted(f"{v.name} = {int(i) + int(r.min.value)}" for (v, r), i in zip(items, point)))
        raise AssertionError(f"Expression {Analyzer().simplify(arith.convert(bool_expr))}\nis not true on "
                             f"{dict(vranges)}\nCounterexample: {example}")


def check_int_constraints_trans_consistency(constraints_trans: IntConstraintsTransform,
                                            vranges: Mapping[Var, Range] | None = None) -> None:
    """Check that *constraints_trans* maps each solution of its source system to one of its
    destination and back, and the other way round, by enumeration."""
    outer = dict(vranges or {})

    def forward(one: IntConstraints, two: IntConstraints, there: Mapping[Var, Any], back: Mapping[Var, Any]) -> None:
        ana = Analyzer()
        ranges = {**outer, **one.ranges}
        same = [arith.equal(v, ana.simplify(substitute(there[v], back))) for v in one.variables if v in there]
        holds = [substitute(arith.all(True, *two.relations), back)]
        for v in two.variables:
            if v in two.ranges:
                r = two.ranges[v]
                inside = arith.all(arith.ge(v, r.min), arith.lt(v, arith.add(r.min, r.extent)))
                holds.append(substitute(inside, back))
        check_bool_expr_is_true(arith.all(ana.simplify(arith.all(*holds)), *same), ranges,
                                cond=arith.all(True, *one.relations))

    forward(constraints_trans.src, constraints_trans.dst, constraints_trans.src_to_dst, constraints_trans.dst_to_src)
    forward(constraints_trans.dst, constraints_trans.src, constraints_trans.dst_to_src, constraints_trans.src_to_dst)


__all__ = ["check_bool_expr_is_true", "check_int_constraints_trans_consistency"]
