"""Loop partitioning (TVM's LoopPartition pass): a loop whose body tests ``likely(cond)`` on its
variable is cut where the test starts (or stops) holding for every iteration of the loops
inside, into a main part without the test and a part that keeps it.

A split's tail guard ``likely(((i.outer*4) + i.inner) < n)`` holds for every ``i.inner`` while
``i.outer < n/4``: the loop over ``i.outer`` becomes ``[0, n/4)`` with no guard, then the rest
with the guard. As in TVM, loops of constant extent are partitioned only with
``partition_const_loop``. The pass runs in ``lower`` when a :class:`~lower.PassContext` sets
``"tir.LoopPartition"``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from bound import IntervalSet, eval_set, simplify
from bound.arith.linear import Linear
from lower.ir.stmt import AttrStmt, For, ForKind, IfThenElse, LetStmt, Stmt, seq
from lower.ir.stmt_functor import StmtMutator, stmt_children
from schedule import arith
from schedule.ir.expr import GE, GT, LE, LT, Call, Expr, Var
from schedule.ir.functor import free_vars
from schedule.ir.itervar import IterVar

Steps = Generator[Any, Any, Stmt]


def loop_partition(stmt: Stmt, partition_const_loop: bool = False) -> Stmt:
    """*stmt* with its guarded loops partitioned as above."""
    return _Partition(partition_const_loop)(stmt)


class _Partition(StmtMutator):
    def __init__(self, partition_const_loop: bool) -> None:
        self.const_loops = partition_const_loop

    def visit_for(self, s: For) -> Steps:
        if arith.value_of(s.extent) is not None and not self.const_loops:
            return (yield from self.visit_default(s))
        cut = _find_cut(s)
        if cut is None:
            return (yield from self.visit_default(s))
        point, guard, main_after = cut
        end = arith.add(s.min, s.extent)
        point = simplify(arith.max_expr(s.min, arith.min_expr(point, end)))
        proven = _without(s.body, guard)
        # The pieces' own bodies are partitioned further, not the pieces again on this guard.
        proven_body = yield proven
        kept_body = yield s.body
        first, second = (kept_body, proven_body) if main_after else (proven_body, kept_body)
        pieces = [For(s.loop_var, s.min, simplify(arith.sub(point, s.min)), s.kind, first),
                  For(s.loop_var, point, simplify(arith.sub(end, point)), s.kind, second)]
        return seq(*(p for p in pieces if arith.value_of(p.extent) != 0))


    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        """A block index is cut as a loop is, into ``if (likely(blockIdx.x < point))`` over the
        body without the guard, else the body with it (TVM's partition of a thread axis). Thread
        indices of a block are left alone: their branches would put barriers under a condition."""
        if (s.key != "thread_extent" or not isinstance(s.node, IterVar) or not s.node.thread_tag.startswith("blockIdx")
                or (arith.value_of(s.value) is not None and not self.const_loops)):
            return (yield from self.visit_default(s))
        v = s.node.var
        zero = arith.const(0, v.dtype)
        cut = _find_cut(For(v, zero, s.value, ForKind.SERIAL, s.body))
        if cut is None:
            return (yield from self.visit_default(s))
        point, guard, main_after = cut
        point = simplify(arith.max_expr(zero, arith.min_expr(point, s.value)))
        proven_body = yield _without(s.body, guard)
        kept_body = yield s.body
        if main_after:
            body = IfThenElse(Call("bool", "likely", (arith.ge(v, point),)), proven_body, kept_body)
        else:
            body = IfThenElse(Call("bool", "likely", (arith.lt(v, point),)), proven_body, kept_body)
        return AttrStmt(s.node, s.key, s.value, body)


def _find_cut(loop: For) -> tuple[Expr, Expr, bool] | None:
    """``(point, guard, main_after)``: the first likely guard in *loop*'s body that holds for
    every inner iteration on one side of *point* (after it if *main_after*)."""
    v = loop.loop_var
    stack: list[tuple[Stmt, dict[Var, IntervalSet]]] = [(loop.body, {})]
    while stack:
        s, inner = stack.pop()
        if isinstance(s, IfThenElse) and s.else_case is None and _is_likely(s.condition):
            cond = s.condition.args[0]  # type: ignore[attr-defined]
            found = _deduce(cond, v, inner)
            if found is not None:
                return found[0], s.condition, found[1]
        if isinstance(s, For):
            inner = {**inner, s.loop_var: IntervalSet.interval(s.min, arith.sub(arith.add(s.min, s.extent), 1))}
        elif isinstance(s, AttrStmt) and s.key == "thread_extent" and isinstance(s.node, IterVar):
            inner = {**inner, s.node.var: IntervalSet.interval(arith.const(0, s.value.dtype), arith.sub(s.value, 1))}
        elif isinstance(s, LetStmt):  # a value the cut point may not use: not defined outside the loop
            inner = {**inner, s.var: IntervalSet.everything()}
        stack.extend((c, inner) for c in reversed(stmt_children(s)))
    return None


def _is_likely(e: Expr) -> bool:
    return isinstance(e, Call) and e.name == "likely" and len(e.args) == 1


def _deduce(cond: Expr, v: Var, inner: dict[Var, IntervalSet]) -> tuple[Expr, bool] | None:
    """Where ``cond`` holds for every value of the *inner* variables: ``v < point`` (returns
    ``(point, False)``) or ``v >= point`` (``(point, True)``); None if it is not of that form."""
    if isinstance(cond, (LT, LE)):
        lhs, rhs = cond.a, cond.b
    elif isinstance(cond, (GT, GE)):
        lhs, rhs = cond.b, cond.a
    else:
        return None
    if not (lhs.dtype.startswith("int") and rhs.dtype.startswith("int")):
        return None
    # lhs < rhs (or <=): d = lhs - rhs < 0 (or < 1)
    slack = 1 if isinstance(cond, (LE, GE)) else 0
    lin = Linear.of(simplify(arith.sub(lhs, rhs)))
    k = lin.terms.get(v, 0)
    if not k or any(v in free_vars([atom]) for atom in lin.terms if atom is not v):
        return None
    rest = lin.plus(Linear(lin.dtype, terms={v: k}), -1).to_expr()
    hi = eval_set(rest, inner).max_value
    if not isinstance(hi, Expr) or any(x in inner for x in free_vars([hi])):
        return None
    # k*v + rest < slack for every inner value  <=>  k*v < slack - hi
    bound = arith.sub(arith.const(slack, hi.dtype), hi)
    if k > 0:  # v < ceil(bound / k): v <= floor((bound - 1) / k)
        return simplify(arith.add(arith.floordiv(arith.sub(bound, 1), k), 1)), False
    # k < 0: -|k|*v < bound  <=>  v > -bound/|k|  <=>  v >= floor(-bound/|k|) + 1
    return simplify(arith.add(arith.floordiv(arith.sub(arith.const(0, hi.dtype), bound), -k), 1)), True


def _without(body: Stmt, guard: Expr) -> Stmt:
    """*body* with every ``if (guard)`` (the same condition) replaced by its then-branch."""
    return _Drop(guard)(body)


class _Drop(StmtMutator):
    def __init__(self, guard: Expr) -> None:
        self.guard = guard

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        if s.else_case is None and bool(s.condition == self.guard):
            return (yield s.then_case)
        return (yield from self.visit_default(s))


