"""Guards out of the loops they do not depend on (TVM's HoistIfThenElse).

A split tail's guard ``if (likely((x.outer*5 + x.inner) < 16))`` is built around the
innermost statement; a loop whose whole body is a guard that does not use the loop's variable
runs the same test at every iteration, so the guard goes outside it, and on outward until it
meets the loop it depends on. Guards that read memory stay where they are (the loop may
write what they read), and so do guards with an else branch. It runs after barriers are
placed and moves no guard out of a loop that holds one, so no barrier ends up under a
condition it was not under before.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import Any

from lower.ir.stmt import For, IfThenElse, Load, Stmt
from lower.ir.stmt_functor import StmtMutator
from lower.passes.thread_sync import barrier_holders
from schedule.ir.functor import free_vars, post_order_visit


def hoist_if_then_else(stmt: Stmt) -> Stmt:
    """*stmt* with each loop-invariant guard outside the loops it does not depend on."""
    return _Hoist(barrier_holders(stmt))(stmt)


class _Hoist(StmtMutator):
    def __init__(self, holders: set[int]) -> None:
        self.holders = holders

    def visit_for(self, s: For) -> Generator[Any, Any, Stmt]:
        new = yield from self.visit_default(s)
        if id(s) in self.holders:
            return new
        hoisted = []
        body = new.body
        while (isinstance(body, IfThenElse) and body.else_case is None
               and s.loop_var not in free_vars([body.condition]) and not _reads_memory(body)):
            hoisted.append(body.condition)
            body = body.then_case
        if not hoisted:
            return new
        out: Stmt = replace(new, body=body)
        for cond in reversed(hoisted):
            out = IfThenElse(cond, out)
        return out


def _reads_memory(guard: IfThenElse) -> bool:
    found: list[Load] = []
    post_order_visit(guard.condition, lambda x: found.append(x) if isinstance(x, Load) else None)
    return bool(found)
