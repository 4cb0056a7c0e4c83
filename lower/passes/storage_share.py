"""Memory reuse between buffers whose lifetimes do not overlap (the sharing part of TVM's
StorageRewrite).

Among the allocations opened together (at the function's start, a kernel's, a parallel
loop's), a buffer first used by a statement after the last use of another buffer of the same
scope and type, and no larger, takes that buffer's storage. It may also take it in the very statement
that uses the other buffer for the last time when that statement works in place: each element
it writes is computed from the other buffer's element at the same index only (``A1[i] = A0[i]
+ 2``), and is written once (no loop or sharing thread repeats the store), as TVM folds in-place
updates. Buffers reached other than by loads and stores (views,
pointers passed to calls) keep their own storage.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Any

from lower.errors import LoweringError
from lower.ir.stmt import AttrStmt, Buffer, For, Load, SeqStmt, Stmt, Store
from lower.ir.stmt_functor import StmtMutator, StmtVisitor, walk
from lower.passes.storage_combine import combine
from lower.passes.storage_rewrite import allocate, allocation
from schedule import arith
from schedule.base.errors import ScheduleError
from schedule.base.memory_info import memory_field, memory_info
from schedule.base.storage_scope import RANKS, scope_rank
from schedule.ir.dtype import bits
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import ExprMutator, distinct_post_order, field_names, free_vars, structural_equal
from schedule.ir.itervar import IterVar

#: Scopes whose buffers may share storage (warp buffers are laid out per warp).
SHARED_SCOPES = ("global", "shared", "local")


def share_storage(stmt: Stmt) -> Stmt:
    """*stmt* with buffers of disjoint lifetimes merged as described above."""
    return _Share()(stmt)


class _Share(StmtMutator):
    def __init__(self) -> None:
        # Inside a kernel, the indices of its threads and blocks: every thread of every block
        # runs all of the kernel's body.
        self.kernel: dict[str, frozenset[Var]] | None = None

    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, Stmt]:
        if allocation(s) is None:
            if s.key != "thread_extent" or self.kernel is not None or not isinstance(s.node, IterVar):
                return (yield from self.visit_default(s))
            bound = [x.node for x in walk(s) if isinstance(x, AttrStmt) and x.key == "thread_extent"
                     and isinstance(x.node, IterVar)]
            blocks = frozenset(iv.var for iv in bound if iv.thread_tag.startswith("blockIdx."))
            threads = frozenset(iv.var for iv in bound) - blocks
            # local memory is each thread's own; shared is each block's; global is everyone's
            self.kernel = {"local": frozenset(), "shared": threads, "global": threads | blocks}
            out = yield from self.visit_default(s)
            self.kernel = None
            return out
        buffers: list[Buffer] = []
        body: Stmt = s
        while (buf := allocation(body)) is not None:
            buffers.append(buf)
            body = body.body.body  # type: ignore[attr-defined]
        body = yield body
        # An allocation nothing uses goes, as TVM's StorageRewrite drops it.
        touched = _touched(buffers, body)
        buffers = [b for b in buffers if b in touched]
        merged, opaque = _plan(buffers, body, self.kernel or {})
        moved = {b: (target, 0) for b, target in merged.items()}
        kept = [b for b in buffers if b not in merged]
        combined = combine(kept, opaque)
        for b, (target, _) in list(moved.items()):  # a buffer sharing a combined one's storage
            if target in combined:
                moved[b] = combined[target]
        moved.update({b: place for b, place in combined.items() if place != (b, 0)})
        if moved:
            body = _Rename(moved)(body)
        carriers = {place[0].name: place[0] for place in combined.values()}
        buffers = [carriers.get(b.name, b) if b in combined else b for b in kept
                   if b not in combined or combined[b][1] == 0]
        return allocate(buffers, body)


@dataclass
class _Slot:
    buffer: Buffer  # the buffer whose storage the slot is
    current: Buffer  # the buffer living in it now
    last: int


def _plan(buffers: list[Buffer], body: Stmt, kernel: dict[str, frozenset[Var]]
          ) -> tuple[dict[Buffer, Buffer], set[Buffer]]:
    """Which buffer takes which other's storage (buffer -> the buffer it is renamed to), and the
    buffers reached other than by loads and stores."""
    seq = _sequence(body)
    if len(seq) < 2 or len(buffers) < 2:
        return {}, _opaque(buffers, body)
    candidates = frozenset(buffers)  # one set for all statements (a copy each was quadratic)
    uses = [_Uses(candidates) for _ in seq]
    for u, x in zip(uses, seq):
        u(x)
    opaque = set().union(*(u.opaque for u in uses))
    first: dict[Buffer, int] = {}
    last: dict[Buffer, int] = {}
    for k, u in enumerate(uses):
        for b in u.reads | u.writes:
            first.setdefault(b, k)
            last[b] = k
    merged: dict[Buffer, Buffer] = {}
    slots: list[_Slot] = []
    for b in sorted((b for b in buffers if b in first and b not in opaque), key=lambda b: first[b]):
        sharing = kernel.get(b.scope, frozenset())

        def free(sl: _Slot, b: Buffer = b, sharing: frozenset[Var] = sharing) -> bool:
            """Whether *b* may take *sl*: the slot's buffer is dead by *b*'s first use, or dies in it
            while the statement works in place."""
            return sl.last < first[b] or (sl.last == first[b] and _in_place(sl.current, b, uses[first[b]], sharing))

        slot = next((sl for sl in slots if _fits(sl.buffer, b) and free(sl)), None)
        if slot is None:
            slots.append(_Slot(b, b, last[b]))
            continue
        merged[b] = slot.buffer
        slot.current, slot.last = b, last[b]
    return merged, opaque


def _touched(buffers: list[Buffer], body: Stmt) -> set[Buffer]:
    """The buffers of *buffers* that *body* reads, writes or reaches otherwise."""
    uses = _Uses(set(buffers))
    uses(body)
    return uses.reads | uses.writes | uses.opaque


def _opaque(buffers: list[Buffer], body: Stmt) -> set[Buffer]:
    uses = _Uses(set(buffers))
    uses(body)
    return uses.opaque


def _sequence(body: Stmt) -> list[Stmt]:
    """The statements run one after another in *body* (nested sequences opened)."""
    out: list[Stmt] = []
    stack = [body]
    while stack:
        x = stack.pop()
        if isinstance(x, SeqStmt):
            stack.extend(reversed(x.seq))
        else:
            out.append(x)
    return out


def _fits(slot: Buffer, b: Buffer) -> bool:
    """Whether *b* fits in *slot*'s storage: same scope (a rank that shares, tagged or not) and
    type, a size no larger."""
    if not (slot.scope == b.scope and _shares(slot.scope) and slot.dtype == b.dtype):
        return False
    small, large = arith.value_of(b.size), arith.value_of(slot.size)
    return structural_equal(slot.size, b.size) or (small is not None and large is not None and small <= large)


def _shares(scope: str) -> bool:
    try:
        return RANKS[scope_rank(scope)] in SHARED_SCOPES and not scope.startswith(("warp", "wmma"))
    except ScheduleError:
        return False


def _in_place(dying: Buffer, born: Buffer, uses: _Uses, threads: frozenset[Var]) -> bool:
    """Whether the statement *uses* describes reads *dying* only at the index of the store to
    *born* it computes, writes *dying* nowhere, and writes each element of *born* once: every
    loop around that store, and every index of the *threads* that share *born*, is in its
    index. A store repeated at one index (a stage recomputed at each iteration of an outer
    loop, or by every thread) would read back what it wrote."""
    if dying in uses.writes or born not in uses.writes or dying in uses.reads_outside_stores:
        return False
    for buffer, index, loads, index_loads, loops in uses.stores:
        if dying in index_loads:
            return False
        reads = [i for b, i in loads if b is dying]
        if reads and (buffer is not born or any(not structural_equal(i, index) for i in reads)):
            return False
        if buffer is born and not loops | threads <= set(free_vars([index])):
            return False
    return True


class _Uses(StmtVisitor):
    """The candidate buffers one statement reads and writes, and those it reaches otherwise."""

    def __init__(self, candidates: frozenset[Buffer] | set[Buffer]) -> None:
        self.candidates = candidates
        self.reads: set[Buffer] = set()
        self.writes: set[Buffer] = set()
        self.opaque: set[Buffer] = set()
        self.reads_outside_stores: set[Buffer] = set()
        # per store: its buffer and index, the candidates' loads in its value, those in its index,
        # and the loop variables around it in the statement
        self.stores: list[tuple[Buffer, Expr, list[tuple[Buffer, Expr]], set[Buffer], frozenset[Var]]] = []
        self._loops: list[Var] = []
        self._in_store = False

    def visit_for(self, s: For) -> Generator[Any, Any, None]:
        self._loops.append(s.loop_var)
        yield from self.visit_default(s)
        self._loops.pop()

    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, None]:
        if isinstance(s.node, Buffer) and s.node in self.candidates:  # an attribute of the buffer itself
            self.opaque.add(s.node)
        yield from self.visit_default(s)

    def visit_store(self, s: Store) -> None:
        if s.buffer in self.candidates:
            self.writes.add(s.buffer)
        self._in_store = True
        loads = self._loads(s.value)
        index_loads = {b for b, _ in self._loads(s.index)}
        for e in s.checks:
            self.visit_expr(e)
        self._in_store = False
        self.stores.append((s.buffer, s.index, loads, index_loads, frozenset(self._loops)))

    def _loads(self, e: Expr) -> list[tuple[Buffer, Expr]]:
        self.visit_expr(e)
        return [(x.buffer, x.index) for x in distinct_post_order(e)
                if isinstance(x, Load) and x.buffer in self.candidates]

    def visit_expr(self, e: Expr) -> None:
        for x in distinct_post_order(e):
            if isinstance(x, Load):
                if x.buffer in self.candidates:
                    self.reads.add(x.buffer)
                    if not self._in_store:
                        self.reads_outside_stores.add(x.buffer)
                continue
            for name in field_names(x):  # a buffer reached another way: a view, a pointer
                value = getattr(x, name)
                if isinstance(value, Buffer) and value in self.candidates:
                    self.opaque.add(value)


Moved = dict[Buffer, tuple[Buffer, int]]  # buffer -> the buffer it lives in, at that offset


def _moved(node: Any, moved: Moved) -> Any:
    place = moved.get(node.buffer)
    if place is None:
        return node
    target, offset = place
    return replace(node, buffer=target, index=arith.add(node.index, offset) if offset else node.index)


class _RenameExpr(ExprMutator):
    def __init__(self, moved: Moved) -> None:
        self.moved = moved

    def visit_load(self, e: Load) -> Expr:
        return _moved(self.visit_default(e), self.moved)


class _Rename(StmtMutator):
    def __init__(self, moved: Moved) -> None:
        self.moved = moved
        self.exprs = _RenameExpr(moved)

    def mutate_expr(self, e: Expr) -> Expr:
        return self.exprs(e)

    def visit_store(self, s: Store) -> Generator[Any, Any, Stmt]:
        return _moved((yield from self.visit_default(s)), self.moved)


def check_memory_bounds(stmt: Stmt) -> None:
    """Refuse an allocation larger than its scope's registered capacity (TVM's
    ``tvm.info.mem.<scope>``).

    :raises LoweringError: naming the buffer, the scope and both sizes in bits.
    """
    for s in walk(stmt):
        buf = allocation(s)
        if buf is None or buf.scope in RANKS:
            continue
        info, size = memory_info(buf.scope), arith.value_of(buf.size)
        if info is None or size is None:
            continue
        need = int(size) * bits(buf.dtype)
        limit = memory_field(info, "max_num_bits")
        if not isinstance(limit, int):
            raise LoweringError(f"tvm.info.mem.{buf.scope} gave {info!r}, which has no integer "
                                "max_num_bits; return a te.MemoryInfo")
        if need > limit:
            raise LoweringError(f"Allocation exceed bound of memory tag {buf.scope}: buffer '{buf.name}' "
                                f"needs {need} bits, the scope holds {limit}")
