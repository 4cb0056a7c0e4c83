"""Barriers that every thread of a block reaches: thread-dependent trip counts and conditions
around a barrier become predicates of the work between barriers.

Exact mode shrinks a region to what each thread needs, so a stage inside a thread-bound loop
may get a loop whose trip count depends on the thread, ``for (ax0, 0, select((threadIdx.y >= 8),
0, 1))``. Around a barrier or a cross-thread reduction that lets some threads skip it, a deadlock
on a GPU. Such a loop runs the largest trip count in every thread instead, and its own bound
becomes a predicate: an ``if`` around each barrier-free statement inside, and a term of each
cross-thread reduction's condition, as TVM passes a split tail's condition into
``tvm_thread_allreduce``. A condition that differs between threads around a barrier is turned
the same way into predicates of its branches.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from bound import IntervalSet, eval_set, simplify
from lower.ir.stmt import AttrStmt, Evaluate, For, IfThenElse, LetStmt, SeqStmt, Stmt, Store, is_no_op, seq
from lower.ir.stmt_functor import StmtMutator
from lower.ir.substitute import substitute_stmt
from lower.passes.thread_sync import barrier_holders, holders_of, is_allreduce, is_barrier
from schedule import arith
from schedule.base.storage_scope import per_block
from schedule.ir.expr import Call, Expr, IntImm, Var
from schedule.ir.functor import free_vars, substitute
from schedule.ir.itervar import IterVar, Range

Steps = Generator[Any, Any, Stmt]


def uniform_barriers(stmt: Stmt) -> Stmt:
    """*stmt* with no barrier under a loop trip count or a condition that differs between threads."""
    holders = barrier_holders(stmt)
    return _Uniform(holders)(stmt) if holders else stmt


class _Uniform(StmtMutator):
    def __init__(self, holders: set[int]) -> None:
        self.holders = holders
        self.threads: dict[Var, IntervalSet] = {}  # thread indices (not blocks) and their ranges
        self.varying: set[Var] = set()  # variables whose value differs between threads

    def varies(self, e: Expr) -> bool:
        return any(v in self.varying for v in free_vars([e]))

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        iv = s.node
        if (s.key != "thread_extent" or not isinstance(iv, IterVar) or iv.thread_tag.startswith("blockIdx.")
                or iv.var in self.varying):
            return (yield from self.visit_default(s))
        self.varying.add(iv.var)
        self.threads[iv.var] = IntervalSet.interval(arith.const(0), arith.sub(s.value, 1))
        out = yield from self.visit_default(s)
        self.varying.discard(iv.var)
        del self.threads[iv.var]
        return out

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        if not self.varies(s.value):
            return (yield from self.visit_default(s))
        self.varying.add(s.var)
        out = yield from self.visit_default(s)
        self.varying.discard(s.var)
        return out

    def visit_for(self, s: For) -> Steps:
        new = yield from self.visit_default(s)
        if id(s) not in self.holders or not (self.varies(s.min) or self.varies(s.extent)):
            return new
        lo = eval_set(s.min, self.threads).min_value
        hi = eval_set(arith.add(s.min, s.extent), self.threads).max_value
        if not (isinstance(lo, Expr) and isinstance(hi, Expr)) or self.varies(lo) or self.varies(hi):
            return new  # no bound every thread shares: left to the backends to refuse
        lo, extent = simplify(lo), simplify(arith.sub(hi, lo))
        v = s.loop_var
        inside = arith.logical_and(arith.le(s.min, v), arith.lt(v, arith.add(s.min, s.extent)))
        body = new.body
        if isinstance(extent, IntImm) and extent.value == 1:
            inside = simplify(substitute(inside, {v: lo}), self._ranges())
            return _predicated(substitute_stmt(body, {v: lo}), inside)
        inside = simplify(inside, {**self._ranges(), v: Range.from_min_extent(lo, extent)})
        return For(v, lo, extent, new.kind, _predicated(body, inside), new.annotations)

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        new = yield from self.visit_default(s)
        if id(s) not in self.holders or not self.varies(s.condition):
            return new
        cond = _unlikely(new.condition)
        otherwise = None if new.else_case is None else _predicated(new.else_case, arith.logical_not(cond))
        return seq(_predicated(new.then_case, cond), otherwise)

    def _ranges(self) -> dict[Var, Range]:
        out = {}
        for v, r in self.threads.items():
            lo, hi = r.min_value, r.max_value
            if isinstance(lo, Expr) and isinstance(hi, Expr):
                out[v] = Range.from_min_extent(lo, arith.add(arith.sub(hi, lo), 1))
        return out


def _unlikely(cond: Expr) -> Expr:
    return cond.args[0] if isinstance(cond, Call) and cond.name == "likely" else cond


def _predicated(s: Stmt, predicate: Expr) -> Stmt:
    """*s* doing its work only where *predicate* holds, every thread still reaching its barriers
    and doing its share of the block's cooperative stores."""
    if isinstance(predicate, IntImm) and predicate.value:
        return s
    holders = barrier_holders(s) | _cooperative_holders(s)
    return _Predicated(predicate, holders, drop=isinstance(predicate, IntImm))(s)


def _cooperative_holders(root: Stmt) -> set[int]:
    """The ids of the statements under *root* that store into memory the block's threads share
    (a cooperative fetch: every thread does its part at every iteration, whatever its own
    share of the loop's work)."""
    return holders_of(root, lambda s: isinstance(s, Store) and per_block(s.buffer.scope))


class _Predicated(StmtMutator):
    """The thread's own statements guarded by the predicate, cross-thread reductions given it as
    a term of their condition; barriers, stores into shared memory and the statements around
    them kept."""

    def __init__(self, predicate: Expr, holders: set[int], drop: bool = False) -> None:
        self.predicate = predicate
        self.holders = holders
        self.drop = drop  # the predicate is false: barrier-free statements go

    def guard(self, s: Stmt) -> Stmt:
        if is_no_op(s):
            return s
        return seq() if self.drop else IfThenElse(self.predicate, s)

    def dispatch(self, s: Stmt) -> Any:
        if id(s) not in self.holders:
            return self.guard(s)
        if is_barrier(s) or isinstance(s, Store):  # a store here writes shared memory
            return s
        if is_allreduce(s):
            call = s.value
            assert isinstance(call, Call)
            at = 1 + int(call.args[0].value)  # type: ignore[attr-defined]
            cond = simplify(arith.logical_and(call.args[at], self.predicate))
            return Evaluate(Call(call.dtype, call.name, (*call.args[:at], cond, *call.args[at + 1:])))
        return super().dispatch(s)

    def visit_seq_stmt(self, s: SeqStmt) -> Steps:
        """One guard around each run of barrier-free statements."""
        out: list[Stmt] = []
        run: list[Stmt] = []
        for x in s.seq:
            if id(x) in self.holders:
                out += [self.guard(seq(*run)), (yield x)]
                run = []
            else:
                run.append(x)
        return seq(*out, self.guard(seq(*run)))
