"""TVM's ``tir.transform.HoistIfThenElse`` (v0.13, by its expression hoister): each ``if``
whose condition does not depend on the loops around it is copied outside the outermost of
them, ``if c: loop else: loop`` (without ``else`` for an ``if`` that has none); then Simplify
knows ``c`` in each copy and removes the inner test, and RemoveNoOp what is left empty.

A condition crosses no loop whose body is a sequence (it would govern statements it did not),
and neither crosses a thread launch nor moves at all when it uses a thread index, unless the
``"tir.HoistIfThenElse"`` option ``support_block_scope_hosting`` is set. Conditions with side
effects stay.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from lower.ir.stmt import AttrStmt, For, IfThenElse, SeqStmt, Stmt
from lower.ir.stmt_functor import StmtMutator, StmtVisitor
from schedule.base.pass_context import options
from schedule.ir.expr import Expr, Var
from schedule.ir.extern_calls import CallEffectKind
from schedule.ir.functor import post_order_visit
from schedule.ir.itervar import IterVar
from tebound.tvm.tir.analyzer_mutator import side_effect
from tebound.tvm.tir.remove_no_op import remove_no_op
from tebound.tvm.tir.simplify import simplify
from tebound.tvm.tir.ssa import convert_ssa


@dataclass
class _Loop:
    var: Var
    stmt: Stmt
    conditions: list[tuple[Expr, bool]] = field(default_factory=list)  # (condition, with an else)
    reached_sequence: bool = False

    @property
    def is_thread(self) -> bool:
        return not isinstance(self.stmt, For)


def _uses(e: Expr, var: Var) -> bool:
    found = False

    def see(x: Expr) -> None:
        nonlocal found
        found = found or x is var
    post_order_visit(e, see)
    return found


class _Collect(StmtVisitor):
    """Where each hoistable condition goes: the loops, innermost last, and their conditions."""

    def __init__(self, across_threads: bool) -> None:
        self.across_threads = across_threads
        self.active: list[_Loop] = []
        self.loops: dict[int, _Loop] = {}

    def destination(self, e: Expr) -> _Loop | None:
        if not self.active:
            return None
        for k in range(len(self.active) - 1, -1, -1):
            loop = self.active[k]
            if loop.reached_sequence or _uses(e, loop.var) or (loop.is_thread and not self.across_threads):
                return None if k == len(self.active) - 1 else self.active[k + 1]
        return self.active[0]

    def enter(self, var: Var, s: Stmt) -> _Loop:
        loop = _Loop(var, s)
        self.active.append(loop)
        self.loops[id(s)] = loop
        return loop

    def visit_for(self, s: For) -> Generator[Any, Any, None]:
        self.enter(s.loop_var, s)
        yield s.body
        self.active.pop()

    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, None]:
        var = s.node.var if isinstance(s.node, IterVar) else s.node if isinstance(s.node, Var) else None
        if var is None:
            yield s.body
            return
        self.enter(var, s)
        yield s.body
        self.active.pop()

    def visit_seq_stmt(self, s: SeqStmt) -> Generator[Any, Any, None]:
        if self.active:
            self.active[-1].reached_sequence = True
        for x in s.seq:
            yield x

    def visit_if_then_else(self, s: IfThenElse) -> Generator[Any, Any, None]:
        threads = [loop.var for loop in self.active if loop.is_thread]
        uses_thread = any(_uses(s.condition, v) for v in threads)
        if side_effect(s.condition) <= CallEffectKind.Pure and (self.across_threads or not uses_thread):
            loop = self.destination(s.condition)
            if loop is not None and not loop.reached_sequence:
                loop.conditions.append((s.condition, s.else_case is not None))
        yield s.then_case
        if s.else_case is not None:
            yield s.else_case


class _Wrap(StmtMutator):
    """Each loop inside the copies of its hoisted conditions."""

    def __init__(self, loops: dict[int, _Loop]) -> None:
        self.loops = loops

    def _wrap(self, original: Stmt, out: Stmt) -> Stmt:
        loop = self.loops.get(id(original))
        for condition, with_else in reversed(loop.conditions if loop else []):
            out = IfThenElse(condition, out, out if with_else else None)
        return out

    def visit_for(self, s: For) -> Generator[Any, Any, Stmt]:
        return self._wrap(s, (yield from self.visit_default(s)))

    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, Stmt]:
        return self._wrap(s, (yield from self.visit_default(s)))


def hoist_if_then_else(body: Stmt) -> Stmt:
    """*body* with its loop-invariant conditions hoisted (see the module's docstring)."""
    collect = _Collect(options("tir.HoistIfThenElse")["support_block_scope_hosting"])
    collect(body)
    return remove_no_op(simplify(convert_ssa(_Wrap(collect.loops)(body))))
