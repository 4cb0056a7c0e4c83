"""Barriers between threads that share memory (TVM's ThreadSync planner and inserter).

Inside a kernel, when a statement reads a shared buffer that an earlier statement wrote (or
writes one an earlier statement read) and the two may touch different elements, every
thread must finish the first before any starts the second: ``tvm_storage_sync("shared")``
goes before the second. Accesses at the same single index that depends on the innermost
thread index cannot conflict (each thread touches its own element). A loop is simulated
twice to catch a conflict between the end of one iteration and the start of the next.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from types import GeneratorType
from typing import Any

from bound import IntervalSet, eval_set
from lower.errors import LoweringError
from lower.ir.stmt import AttrStmt, BufferView, Evaluate, For, IfThenElse, Load, SeqStmt, Stmt, Store, seq
from lower.ir.stmt_functor import StmtFunctor, StmtMutator, StmtVisitor, stmt_children, walk
from schedule import arith
from schedule.ir.expr import Call, Expr, StringImm, Var
from schedule.ir.functor import free_vars, post_order_visit, structural_equal
from schedule.ir.itervar import IterVar, Range

Steps = Generator[Stmt, None, None]

#: The scopes whose buffers threads share: within a block, and within a warp (its barrier is
#: ``tvm_storage_sync("warp")``, CUDA's ``__syncwarp``).
SYNC_SCOPES = ("shared", "shared.dyn", "warp")


def barrier(scope: str = "shared") -> Evaluate:
    """``tvm_storage_sync("<scope>")``: every thread of the block waits for the others."""
    return Evaluate(Call("int32", "tvm_storage_sync", (StringImm(scope),)))


def is_barrier(s: Stmt) -> bool:
    return isinstance(s, Evaluate) and isinstance(s.value, Call) and s.value.name == "tvm_storage_sync"


def is_allreduce(s: Stmt) -> bool:
    """Whether *s* is a cross-thread reduction (the threads wait for one another there too)."""
    return isinstance(s, Evaluate) and isinstance(s.value, Call) and s.value.name == "tvm_thread_allreduce"


def contains_barrier(s: Stmt) -> bool:
    """Whether *s* holds a barrier or a cross-thread reduction anywhere."""
    return any(is_barrier(x) or is_allreduce(x) for x in walk(s))


def barrier_holders(root: Stmt) -> set[int]:
    """The ids of the statements under *root* (itself included) that hold a barrier or a
    cross-thread reduction."""
    return holders_of(root, lambda s: is_barrier(s) or is_allreduce(s))


def holders_of(root: Stmt, pick: Callable[[Stmt], bool]) -> set[int]:
    """The ids of the statements under *root* (itself included) that hold a statement *pick*
    chooses. A statement may sit in several places (a partitioned loop's copies share their
    body): it holds wherever it is, and so does each statement around any of its places."""
    holds: dict[int, bool] = {}
    stack: list[tuple[Stmt, bool]] = [(root, False)]
    while stack:
        s, children_done = stack.pop()
        if children_done:
            holds[id(s)] = pick(s) or any(holds[id(c)] for c in stmt_children(s))
            continue
        if id(s) in holds:
            continue
        stack.append((s, True))
        stack.extend((c, False) for c in stmt_children(s) if id(c) not in holds)
    return {key for key, held in holds.items() if held}


@dataclass
class _Access:
    kind: str  # "read", "write" or "sync"
    buffer: object = None
    touched: IntervalSet | None = None
    threads: tuple[IterVar, ...] = ()


@dataclass
class _Entry:
    stmt: Stmt
    accesses: list[_Access] = field(default_factory=list)


class _Planner(StmtFunctor[None]):
    def __init__(self, scope: str) -> None:
        self.scope = scope
        self.syncs: set[int] = set()
        self.seqs: list[list[_Entry]] = []
        self.threads: list[IterVar] = []
        self.in_device = False
        self.conditions = 0

    # -- collecting accesses -------------------------------------------------------------------
    def enabled(self, buffer: object) -> bool:
        return self.in_device and getattr(buffer, "scope", None) == self.scope

    def reads(self, e: Expr) -> list[_Access]:
        found: list[_Access] = []
        threads = tuple(self.threads)

        def visit(x: Expr) -> None:
            if isinstance(x, Load) and self.enabled(x.buffer):
                found.append(_Access("read", x.buffer, IntervalSet.point(x.index), threads))
            elif isinstance(x, Call) and x.name == "tvm_access_ptr" and isinstance(x.args[1], BufferView) \
                    and self.enabled(x.args[1].buffer):  # a call reads or writes the window (wmma loads)
                start, extent, mask = x.args[2], x.args[3], arith.value_of(x.args[4])
                window = IntervalSet.interval(start, arith.sub(arith.add(start, extent), 1))
                for bit, kind in ((1, "read"), (2, "write")):
                    if not isinstance(mask, int) or mask & bit:
                        found.append(_Access(kind, x.args[1].buffer, window, threads))
            elif isinstance(x, Call) and x.name == "tvm_storage_sync" and _sync_scope(x) != "warp":
                found.append(_Access("sync", threads=threads))
        post_order_visit(e, visit)
        return found

    def visit_store(self, s: Store) -> None:
        accesses = [a for e in (s.value, s.index) for a in self.reads(e)]
        if self.enabled(s.buffer):
            accesses.append(_Access("write", s.buffer, IntervalSet.point(s.index), tuple(self.threads)))
        if self.seqs:
            self.seqs[-1].append(_Entry(s, accesses))

    def visit_evaluate(self, s: Evaluate) -> None:
        accesses = self.reads(s.value)
        if accesses and self.seqs:
            self.seqs[-1].append(_Entry(s, accesses))

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        if s.key != "thread_extent" or not isinstance(s.node, IterVar):
            yield s.body
            return
        self.threads.append(s.node)
        if self.in_device:
            yield s.body
        else:
            self.in_device = True
            self.seqs.append([])
            yield s.body
            self.summarize(self.seqs.pop(), None)  # the end of a kernel synchronizes everything
            self.in_device = False
        self.threads.pop()

    def visit_for(self, s: For) -> Steps:
        self.seqs.append([])
        yield s.body
        accesses = self.summarize(self.seqs.pop(), s)
        relax = {s.loop_var: IntervalSet.from_range(Range.from_min_extent(s.min, s.extent))}
        for a in accesses:
            if a.touched is not None:
                lo, hi = a.touched.min_value, a.touched.max_value
                a.touched = IntervalSet.interval(eval_set(lo, relax).min_value if isinstance(lo, Expr) else lo,
                                                 eval_set(hi, relax).max_value if isinstance(hi, Expr) else hi)
        if accesses and self.seqs:
            self.seqs[-1].append(_Entry(s, accesses))

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        self.conditions += 1
        self.seqs.append([])
        yield s.then_case
        accesses = self.summarize(self.seqs.pop(), None)
        if s.else_case is not None:
            self.seqs.append([])
            yield s.else_case
            accesses += self.summarize(self.seqs.pop(), None)
        if self.seqs:
            self.seqs[-1].append(_Entry(s, accesses))
        self.conditions -= 1

    def visit_seq_stmt(self, s: SeqStmt) -> Steps:
        for x in s.seq:
            yield x

    def visit_default(self, s: Stmt) -> Steps:  # allocate, let, produce: their bodies
        body = getattr(s, "body", None)
        if body is not None:
            yield body

    # -- planning ------------------------------------------------------------------------------
    def summarize(self, entries: list[_Entry], loop: For | None) -> list[_Access]:
        """Mark the statements that need a barrier first; the accesses *entries* leave exposed."""
        reads: list[_Access] = []
        writes: list[_Access] = []
        for entry in entries:
            sync = id(entry.stmt) in self.syncs
            if sync:
                reads, writes = [], []
            for a in entry.accesses:
                if (a.kind == "read" and _conflict(writes, a)) or (a.kind == "write" and _conflict(reads, a)):
                    sync = True
                    break
                if a.kind == "sync":
                    reads, writes = [], []
            if sync:
                reads, writes = [], []
            for a in entry.accesses:
                if a.kind == "sync":
                    reads, writes = [], []
                else:
                    (reads if a.kind == "read" else writes).append(a)
            if sync:
                self._insert(entry)
        if loop is not None:  # the next iteration's start after this one's end
            for entry in entries:
                if id(entry.stmt) in self.syncs or not (reads or writes):
                    break
                if any((a.kind == "read" and _conflict(writes, a)) or (a.kind == "write" and _conflict(reads, a))
                       for a in entry.accesses):
                    self._insert(entry)
                    break
        head: list[_Access] = []
        tail: list[_Access] = []
        synced = 0
        esync = _Access("sync", threads=tuple(self.threads))
        for entry in entries:
            for a in ([esync] if id(entry.stmt) in self.syncs else []) + entry.accesses:
                if a.kind == "sync":
                    if synced:
                        tail = []
                    else:
                        head.append(esync)
                    synced += 1
                else:
                    (tail if synced else head).append(a)
        return head + tail

    def _insert(self, entry: _Entry) -> None:
        if self.conditions:
            raise LoweringError("a barrier is needed inside a condition, where some threads of a block "
                                "might not reach it; compute the shared stage outside the condition")
        self.syncs.add(id(entry.stmt))


def _sync_scope(call: Call) -> str:
    arg = call.args[0] if call.args else None
    return arg.value if isinstance(arg, StringImm) else ""


def _conflict(previous: list[_Access], current: _Access) -> bool:
    return any(_conflicts(p, current) for p in previous)


def _conflicts(prev: _Access, curr: _Access) -> bool:
    if prev.buffer is not curr.buffer:
        return False
    thread: Var | None = curr.threads[-1].var if curr.threads else None
    a, b = prev.touched, curr.touched
    assert a is not None and b is not None
    if a.is_single_point() and b.is_single_point() and structural_equal(a.min_value, b.min_value):
        if thread is None:
            return False
        uses = [thread in free_vars([x.min_value]) for x in (a, b)]
        if all(uses):
            return False
    return True


class _Inserter(StmtMutator):
    def __init__(self, syncs: set[int], scope: str) -> None:
        self.syncs = syncs
        self.scope = scope

    def dispatch(self, s: Stmt) -> Any:
        inner = super().dispatch(s)
        return self._fenced(inner) if id(s) in self.syncs else inner

    def _fenced(self, inner: Any) -> Generator[Any, Any, Stmt]:
        out = (yield inner) if isinstance(inner, GeneratorType) else inner
        return seq(barrier(self.scope), out)


class _Scopes(StmtVisitor):
    """The storage scopes a statement writes (only written memory needs a barrier)."""

    def __init__(self) -> None:
        self.found: set[str] = set()

    def visit_store(self, s: Store) -> None:
        self.found.add(s.buffer.scope)


def thread_sync(stmt: Stmt) -> Stmt:
    """*stmt* with the barriers that shared memory needs between the threads of a block."""
    scopes = _Scopes()
    scopes(stmt)
    for scope in (s for s in SYNC_SCOPES if s in scopes.found):
        planner = _Planner(scope)
        planner(stmt)
        if planner.syncs:
            stmt = _Inserter(planner.syncs, scope)(stmt)
    return stmt
