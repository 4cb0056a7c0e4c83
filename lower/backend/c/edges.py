"""Innermost loops cut where their conditions change (a padding's ``if_then_else`` on the loop
variable): the iterations in the middle, where every condition is known, run without them, so
the compiler vectorizes them (or copies them as a block); those before and after keep the
tests. As Halide partitions the loops of its boundary conditions; TVM's lowered IR stays as it
was (the cut is made only in the C source). The cuts are :mod:`lower.passes.loop_partition`'s,
on the loops it is given as hinted. A 3x3 conv2d's padding of 64 x 58 x 58: 0.100 -> 0.022 ms."""

from __future__ import annotations

import functools
from typing import Any

from lower.ir.stmt import AttrStmt, For, ForKind, IfThenElse, Stmt
from lower.ir.stmt_functor import ir_transform, stmt_exprs, walk
from lower.passes.loop_partition import HINT, IF_THEN_ELSE, loop_partition
from lower.passes.simplify_stmt import simplify_stmt
from schedule import arith
from schedule.ir.expr import And, Call, Expr
from schedule.ir.functor import distinct_post_order, free_vars


def cut_edges(body: Stmt) -> Stmt:
    """*body* with each innermost serial loop whose statements test its variable (an ``if`` or
    an ``if_then_else``) cut at the tests' bounds."""
    def cut(s: Stmt) -> Stmt | None:
        if isinstance(s, For) and s.kind == ForKind.SERIAL and _tests_variable(s):
            # the loop alone: the pass would otherwise cut the loops around it too
            return simplify_stmt(loop_partition(AttrStmt(s.loop_var, HINT, arith.const(1, "int32"), _nest_tests(s))))
        return None

    return ir_transform(body, None, cut, ["tir.For"])


def _nest_tests(s: For) -> For:
    """*s* with each ``if_then_else(a && b, t, e)`` whose conjuncts *a* do not read the loop
    variable and *b* do written ``if_then_else(a, if_then_else(b, t, e), e)``: the same value
    (one operand is evaluated either way), and the inner test alone is the loop's to cut."""
    v = s.loop_var

    def post(node: Any) -> Any:
        if not (isinstance(node, Call) and node.name == IF_THEN_ELSE):
            return None
        atoms = _conjuncts(node.args[0])
        varying = [a for a in atoms if v in free_vars([a])]
        fixed = [a for a in atoms if v not in free_vars([a])]
        if not varying or not fixed:
            return None
        then, otherwise = node.args[1], node.args[2]
        inner = Call(node.dtype, IF_THEN_ELSE, (functools.reduce(And, varying), then, otherwise))
        return Call(node.dtype, IF_THEN_ELSE, (functools.reduce(And, fixed), inner, otherwise))

    return ir_transform(s, None, post)


def _conjuncts(cond: Expr) -> list[Expr]:
    out, stack = [], [cond]
    while stack:
        e = stack.pop()
        if isinstance(e, And):
            stack.extend((e.b, e.a))
        else:
            out.append(e)
    return out


def _tests_variable(s: For) -> bool:
    """Whether *s* holds no loop and a condition of its body reads its variable."""
    v = s.loop_var
    if any(isinstance(x, For) for x in walk(s.body)):
        return False
    for x in walk(s.body):
        if isinstance(x, IfThenElse) and v in free_vars([x.condition]):
            return True
        for e in stmt_exprs(x):
            if any(isinstance(c, Call) and c.name == IF_THEN_ELSE and v in free_vars([c.args[0]])
                   for c in distinct_post_order(e)):
                return True
    return False
